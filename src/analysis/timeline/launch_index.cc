#include "analysis/timeline/launch_index.h"

#include <algorithm>
#include <climits>

#include "store/column_codec.h"

namespace kscope::analysis {

using store::kNull;

OpIndex::OpIndex(const std::vector<int64_t>& kernel_pid, const std::vector<int64_t>& kernel_corr,
                 const std::vector<int64_t>& memop_pid, const std::vector<int64_t>& memop_corr)
    : kernel_corr_(&kernel_corr), memop_corr_(&memop_corr), n_kernels_(kernel_corr.size()) {
  const size_t n_ops = n_kernels_ + memop_corr.size();
  auto pid_of = [&](size_t i) { return i < n_kernels_ ? kernel_pid[i] : memop_pid[i - n_kernels_]; };
  // A run has few processes: finding one by a linear scan is cheaper than hashing.
  std::vector<std::pair<int64_t, size_t>> counts;
  for (size_t i = 0; i < n_ops; ++i) {
    if (Corr(static_cast<uint32_t>(i)) == kNull || pid_of(i) == kNull) continue;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == pid_of(i); });
    if (it == counts.end()) {
      counts.emplace_back(pid_of(i), 1);
    } else {
      ++it->second;
    }
  }
  size_t at = 0;
  for (const auto& [pid, count] : counts) {
    procs_.push_back({pid, at, at});
    at += count;
  }
  ops_.resize(at);
  for (size_t i = 0; i < n_ops; ++i) {
    if (Corr(static_cast<uint32_t>(i)) == kNull || pid_of(i) == kNull) continue;
    auto p = std::find_if(procs_.begin(), procs_.end(), [&](const Process& x) { return x.pid == pid_of(i); });
    ops_[p->end++] = static_cast<uint32_t>(i);
  }
  // Stable, so that the operations of one correlation id stay in operation order. Export
  // tables are mostly in correlation order already, which the check skips.
  auto by_corr = [&](uint32_t a, uint32_t b) { return Corr(a) < Corr(b); };
  for (const Process& p : procs_) {
    const auto first = ops_.begin() + static_cast<ptrdiff_t>(p.begin);
    const auto last = ops_.begin() + static_cast<ptrdiff_t>(p.end);
    if (!std::is_sorted(first, last, by_corr)) std::stable_sort(first, last, by_corr);
  }
}

OpIndex::Group OpIndex::Find(int64_t pid, int64_t corr) const {
  for (const Process& p : procs_) {
    if (p.pid != pid) continue;
    const auto first = ops_.begin() + static_cast<ptrdiff_t>(p.begin);
    const auto last = ops_.begin() + static_cast<ptrdiff_t>(p.end);
    const auto lo = std::lower_bound(first, last, corr, [&](uint32_t op, int64_t c) { return Corr(op) < c; });
    const auto hi = std::upper_bound(lo, last, corr, [&](int64_t c, uint32_t op) { return c < Corr(op); });
    return {static_cast<uint32_t>(lo - ops_.begin()), {lo, hi}};
  }
  return {};
}

CallRanges::CallRanges(const NsysEvents::Nvtx& nvtx, int64_t open_range_end) : n_(nvtx), open_end_(open_range_end) {
  for (size_t r = 0; r < n_.start.size(); ++r) {
    if (n_.end_global_tid[r] == kNull) threads_[n_.global_tid[r]].rows.push_back(static_cast<uint32_t>(r));
  }
  for (auto& [tid, t] : threads_) process_threads_[tid & kPidMask].push_back(tid);
  for (auto& [pid, tids] : process_threads_) std::sort(tids.begin(), tids.end());
  for (auto& [tid, t] : threads_) {
    std::sort(t.rows.begin(), t.rows.end(), [&](uint32_t x, uint32_t y) {
      if (n_.start[x] != n_.start[y]) return n_.start[x] < n_.start[y];
      return End(x) > End(y);
    });
    std::vector<uint32_t> stack;
    for (uint32_t r : t.rows) {
      while (!stack.empty() && End(stack.back()) < n_.start[r]) stack.pop_back();
      if (!stack.empty() &&
          (End(r) > End(stack.back()) || (n_.start[r] == n_.start[stack.back()] && End(r) == End(stack.back())))) {
        t.nested = false;
        break;
      }
      stack.push_back(r);
    }
    if (t.nested) continue;
    size_t size = 1;
    while (size < t.rows.size()) size *= 2;
    t.max_end.assign(2 * size, INT64_MIN);
    for (size_t i = 0; i < t.rows.size(); ++i) t.max_end[size + i] = End(t.rows[i]);
    for (size_t i = size; i-- > 1;) t.max_end[i] = std::max(t.max_end[2 * i], t.max_end[2 * i + 1]);
  }
}

int64_t CallRanges::End(uint32_t r) const { return n_.end[r] == kNull ? open_end_ : n_.end[r]; }

void CallRanges::Containing(int64_t tid, int64_t start, int64_t end, std::vector<int32_t>& out) const {
  auto t = threads_.find(tid);
  if (t == threads_.end()) return;
  const auto& rows = t->second.rows;
  const auto after =
      std::upper_bound(rows.begin(), rows.end(), start, [&](int64_t v, uint32_t r) { return v < n_.start[r]; });
  if (t->second.nested) {
    // Every range holding the call is the last range started before it or its ancestor.
    int64_t r = after == rows.begin() ? kNull : *(after - 1);
    for (size_t walked = 0; r != kNull && walked < kMaxRangeWalk && out.size() < kMaxRangesPerCall; ++walked) {
      if (End(static_cast<uint32_t>(r)) >= end) out.push_back(static_cast<int32_t>(r));
      r = n_.parent[static_cast<size_t>(r)];
    }
  } else {
    const size_t size = t->second.max_end.size() / 2;
    Holding(t->second, 1, 0, size, static_cast<size_t>(after - rows.begin()), end, out);
  }
}

// The rows of [lo, hi) (node's block) before `before` that end at or after `end`, in start
// order. A block is entered only when one of its rows ends late enough, so the visits are
// about (ranges found + 1) * 2 log2(rows).
void CallRanges::Holding(const Thread& t, size_t node, size_t lo, size_t hi, size_t before, int64_t end,
                         std::vector<int32_t>& out) const {
  if (lo >= before || t.max_end[node] < end || out.size() >= kMaxRangesPerCall) return;
  if (hi - lo == 1) {
    out.push_back(static_cast<int32_t>(t.rows[lo]));
    return;
  }
  const size_t mid = lo + (hi - lo) / 2;
  Holding(t, 2 * node, lo, mid, before, end, out);
  Holding(t, 2 * node + 1, mid, hi, before, end, out);
}

const std::vector<int64_t>& CallRanges::ThreadsOf(int64_t pid) const {
  static const std::vector<int64_t> kNone;
  auto it = process_threads_.find(pid);
  return it == process_threads_.end() ? kNone : it->second;
}

}  // namespace kscope::analysis
