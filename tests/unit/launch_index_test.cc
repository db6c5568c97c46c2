// The lookups behind linking a CUDA call to its GPU operations and the ranges around it
// (analysis/timeline/launch_index.h), against the definitions they implement, read off the
// columns directly: the ranges of a thread that hold a call, and the operations of a
// (process, correlation id).
#include "analysis/timeline/launch_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "store/column_codec.h"

namespace kscope::analysis {
namespace {

using store::kNull;

NsysEvents::Nvtx Ranges(const std::vector<std::pair<int64_t, int64_t>>& spans, int64_t tid) {
  NsysEvents::Nvtx n;
  for (const auto& [s, e] : spans) {
    n.start.push_back(s);
    n.end.push_back(e);
    for (auto* c : {&n.event_type, &n.domain, &n.text, &n.end_global_tid, &n.parent, &n.depth}) c->push_back(kNull);
    n.global_tid.push_back(tid);
  }
  return n;
}

// Ranges that cross (so the thread's ranges do not nest): every range holding a call, in start
// order, as a scan of all of them finds.
TEST(CallRanges, CrossingRangesHoldingACallAreEveryOneAScanFinds) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::pair<int64_t, int64_t>> spans;
    const int n = 1 + static_cast<int>(rng() % 300);
    for (int i = 0; i < n; ++i) {
      const int64_t s = static_cast<int64_t>(rng() % 10'000);
      spans.emplace_back(s, s + static_cast<int64_t>(rng() % 3'000));
    }
    spans.emplace_back(0, 100);  // two ranges that cross, whatever else was drawn
    spans.emplace_back(50, 200);
    const auto nvtx = Ranges(spans, 1);
    const CallRanges ranges(nvtx, 0);
    std::vector<int32_t> got;
    for (int call = 0; call < 200; ++call) {
      const int64_t start = static_cast<int64_t>(rng() % 12'000);
      const int64_t end = start + static_cast<int64_t>(rng() % 500);
      got.clear();
      ranges.Containing(1, start, end, got);
      std::vector<int32_t> want;
      for (size_t r = 0; r < spans.size(); ++r) {
        if (spans[r].first <= start && spans[r].second >= end) want.push_back(static_cast<int32_t>(r));
      }
      // In start order (ties: the longer first), as the thread's rows are sorted.
      std::stable_sort(want.begin(), want.end(), [&](int32_t a, int32_t b) {
        if (spans[a].first != spans[b].first) return spans[a].first < spans[b].first;
        return spans[a].second > spans[b].second;
      });
      if (want.size() > CallRanges::kMaxRangesPerCall) want.resize(CallRanges::kMaxRangesPerCall);
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      ASSERT_EQ(got, want) << "round " << round << ", call [" << start << ", " << end << "]";
    }
  }
}

// 200,000 crossing ranges and as many calls, each held by three: found by reading the
// ranges that hold them, not every range before them (2 * 10^10 steps).
TEST(CallRanges, ManyCrossingRangesAreSearchedNotScanned) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  const int64_t n = 200'000;
  for (int64_t i = 0; i < n; ++i) spans.emplace_back(i * 10, i * 10 + 25);  // each crosses the next two
  const auto nvtx = Ranges(spans, 1);
  const CallRanges ranges(nvtx, 0);
  std::vector<int32_t> got;
  int64_t found = 0;
  for (int64_t i = 0; i < n; ++i) {
    got.clear();
    ranges.Containing(1, i * 10 + 21, i * 10 + 22, got);  // inside ranges i, i + 1 and i + 2
    found += static_cast<int64_t>(got.size());
  }
  EXPECT_EQ(found, 3 * n - 3);  // the last two calls have fewer ranges after them
}

// Deep nesting is walked to a bound: a call inside 100,000 nested ranges gets the innermost
// kMaxRangesPerCall.
TEST(CallRanges, DeepNestingIsBounded) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  const int64_t depth = 100'000;
  for (int64_t i = 0; i < depth; ++i) spans.emplace_back(i, 2 * depth - i);
  auto nvtx = Ranges(spans, 1);
  for (int64_t i = 1; i < depth; ++i) nvtx.parent[static_cast<size_t>(i)] = i - 1;
  const CallRanges ranges(nvtx, 0);
  std::vector<int32_t> got;
  ranges.Containing(1, depth, depth + 1, got);
  ASSERT_EQ(got.size(), CallRanges::kMaxRangesPerCall);
  EXPECT_EQ(got.front(), depth - 1);  // innermost first
  EXPECT_EQ(got.back(), depth - static_cast<int64_t>(CallRanges::kMaxRangesPerCall));
}

// A group of operations (process, correlation id) goes to the first call that asks for it in
// a part; parts joined later keep the earliest part's links.
TEST(LaunchClaims, TheFirstCallOfAGroupOwnsItsOperations) {
  const std::vector<int64_t> kpid = {1 << 24, 1 << 24, 1 << 24, 2 << 24}, kcorr = {7, 7, 9, 7}, none;
  const OpIndex ops(kpid, kcorr, none, none);
  const auto g7 = ops.Find(1 << 24, 7);
  ASSERT_EQ(g7.ops.size(), 2U);
  EXPECT_EQ(ops.Find(2 << 24, 7).ops.size(), 1U);
  EXPECT_NE(ops.Find(2 << 24, 7).id, g7.id);
  EXPECT_TRUE(ops.Find(1 << 24, 8).ops.empty());

  const NsysEvents::Nvtx no_ranges;
  const CallRanges ranges(no_ranges, 0);
  std::vector<int32_t> scratch;
  LaunchClaims first(ops), second(ops);
  std::vector<uint32_t> linked_first, linked_second;
  auto link = [&](LaunchClaims& c, std::vector<uint32_t>& out, int64_t corr) {
    return LinkCall(ops, ranges, c, (1 << 24) | 5, corr, 0, 1, scratch,
                    [&](uint32_t op, int32_t) { out.push_back(op); });
  };
  EXPECT_EQ(link(first, linked_first, 7), 2U);
  EXPECT_EQ(link(first, linked_first, 7), 0U);  // the same id again: nothing, counted
  EXPECT_EQ(link(first, linked_first, 9), 1U);
  EXPECT_EQ(first.duplicates(), 1);
  EXPECT_EQ(link(second, linked_second, 7), 2U);  // another part does not know of the first's
  EXPECT_EQ(link(second, linked_second, 9), 1U);
  EXPECT_EQ(linked_first, (std::vector<uint32_t>{0, 1, 2}));

  ClaimsJoin join(ops);
  std::vector<std::pair<uint64_t, bool>> runs;
  join.Part(first, [&](uint64_t n, bool keep) { runs.emplace_back(n, keep); });
  join.Part(second, [&](uint64_t n, bool keep) { runs.emplace_back(n, keep); });
  EXPECT_EQ(runs, (std::vector<std::pair<uint64_t, bool>>{{2, true}, {1, true}, {2, false}, {1, false}}));
  EXPECT_EQ(join.duplicates(), 3);
}

}  // namespace
}  // namespace kscope::analysis
