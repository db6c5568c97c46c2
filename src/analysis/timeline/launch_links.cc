#include "analysis/timeline/launch_links.h"

#include <algorithm>
#include <exception>
#include <thread>

#include "analysis/timeline/launch_index.h"
#include "store/column_codec.h"

namespace kscope::analysis {

std::vector<LaunchLink> LinkLaunches(const NsysEvents& e, int64_t open_range_end, LinkScope scope) {
  const auto& a = e.api;
  const OpIndex ops(e.kernels.global_pid, e.kernels.correlation, e.memops.global_pid, e.memops.correlation);
  const CallRanges ranges(e.nvtx, open_range_end);

  // Link the calls of [begin, end) into `out`.
  auto link_calls = [&](size_t begin, size_t end, std::vector<LaunchLink>& out, LaunchClaims& claims) {
    std::vector<int32_t> containing;
    for (size_t c = begin; c < end; ++c) {
      const uint64_t made = LinkCall(ops, ranges, claims, a.global_tid[c], a.correlation[c], a.start[c], a.end[c],
                                     containing, [&](uint32_t op, int32_t r) {
                                       out.push_back({op, static_cast<uint32_t>(c), r});
                                     });
      if (made == 0 || scope != LinkScope::kOtherThreads) continue;
      const int64_t tid = a.global_tid[c];
      uint64_t more = 0;
      for (const int64_t other : ranges.ThreadsOf(tid & kPidMask)) {
        if (other == tid) continue;
        containing.clear();
        ranges.Containing(other, a.start[c], a.start[c], containing);
        if (containing.empty()) continue;
        for (const uint32_t op : ops.Find(tid & kPidMask, a.correlation[c]).ops) {
          for (const int32_t r : containing) out.push_back({op, static_cast<uint32_t>(c), r, true}), ++more;
        }
      }
      claims.MadeMore(more);
    }
  };
  // The calls are independent once the tables are built: link them in parts, in parallel,
  // and join the parts in call order.
  const size_t calls = a.start.size();
  const size_t parts = std::clamp<size_t>(std::min<size_t>(std::thread::hardware_concurrency(), 8), 1,
                                          std::max<size_t>(calls / 4096, 1));
  std::vector<std::vector<LaunchLink>> linked(parts);
  std::vector<LaunchClaims> claims(parts, LaunchClaims(ops));
  std::vector<std::exception_ptr> failed(parts);
  auto run_part = [&](size_t p) {
    try {
      link_calls(calls * p / parts, calls * (p + 1) / parts, linked[p], claims[p]);
    } catch (...) {
      failed[p] = std::current_exception();  // rethrown on the caller's thread
    }
  };
  std::vector<std::thread> workers;
  for (size_t p = 1; p < parts; ++p) workers.emplace_back(run_part, p);
  run_part(0);
  for (auto& w : workers) w.join();
  for (const auto& error : failed) {
    if (error) std::rethrow_exception(error);
  }
  // A part's links of operations that an earlier part's call launched are dropped (a file with
  // calls sharing correlation ids, counted when it was imported).
  ClaimsJoin join(ops);
  size_t total = 0;
  for (size_t p = 0; p < parts; ++p) {
    auto& part = linked[p];
    size_t at = 0, kept = 0;  // every link belongs to one claiming call's run, in order
    join.Part(claims[p], [&](uint64_t n, bool keep) {
      if (keep && kept != at) std::move(part.begin() + at, part.begin() + at + n, part.begin() + kept);
      if (keep) kept += n;
      at += n;
    });
    part.resize(kept);
    total += kept;
  }
  std::vector<LaunchLink> links;
  links.reserve(total);
  for (auto& part : linked) {
    links.insert(links.end(), part.begin(), part.end());
    part = std::vector<LaunchLink>();  // each part freed once copied, so the join holds about one copy
  }
  return links;
}

}  // namespace kscope::analysis
