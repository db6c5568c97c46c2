// Calls that waited for the GPU: synchronizing calls, and calls held up by the GPU's queue.
#include <algorithm>
#include <unordered_map>

#include "analysis/graph/graph_build.h"

namespace kscope::analysis::graph {

namespace {

// A blocked call: longer than its function's median by this much at least (and by the
// median itself), and returning this soon after an operation of its process ended.
constexpr int64_t kBlockedExcessNs = 20'000;
constexpr int64_t kBlockedLatencyNs = 20'000;
// A synchronizing call's own work where none of its function's calls returned without waiting.
constexpr int64_t kSyncOwnNs = 2'000;

struct FunctionTimes {
  int64_t median = 0, p10 = 0;
};

// Per function (index into events.function_*), its outer calls' median and 10th percentile.
std::vector<FunctionTimes> TimesOfFunctions(const DependencyGraph& g) {
  std::vector<std::vector<int64_t>> durations(g.events.function_ids.size());
  for (uint32_t i = 0; i < g.calls; ++i) {
    if (g.nested[i] == 0) durations[g.events.function_of(g.events.calls.name[i])].push_back(g.duration[i]);
  }
  std::vector<FunctionTimes> out(durations.size());
  for (size_t f = 0; f < durations.size(); ++f) {
    auto& d = durations[f];
    if (d.empty()) continue;
    std::nth_element(d.begin(), d.begin() + static_cast<ptrdiff_t>(d.size() / 2), d.end());
    out[f].median = d[d.size() / 2];
    std::nth_element(d.begin(), d.begin() + static_cast<ptrdiff_t>(d.size() / 10), d.end());
    out[f].p10 = d[d.size() / 10];
  }
  return out;
}

}  // namespace

void Waits(GraphBuild& b) {
  DependencyGraph& g = b.g;
  const auto& c = g.events.calls;
  const auto& o = g.events.ops;
  // Each process's operations by end, to find the one a call's return followed.
  std::unordered_map<int64_t, std::vector<uint32_t>> by_end;
  for (uint32_t i = 0; i < g.ops; ++i) by_end[o.global_pid[i]].push_back(i);
  for (auto& [pid, ops] : by_end) {
    std::sort(ops.begin(), ops.end(), [&](uint32_t x, uint32_t y) { return o.end[x] < o.end[y]; });
  }
  const std::vector<FunctionTimes> times = TimesOfFunctions(g);
  // A synchronizing call that waited keeps as its own work the 10th percentile of its
  // function's calls that did not (kSyncOwnNs where all did): filled once every call is seen.
  std::vector<std::vector<int64_t>> unwaited(times.size());
  std::vector<uint32_t> waited_syncs;
  for (uint32_t i = 0; i < g.calls; ++i) {
    if (g.nested[i] != 0) continue;
    const auto it = by_end.find(c.global_tid[i] & ~int64_t{0xFFFFFF});
    if (it == by_end.end()) continue;
    const auto& ops = it->second;
    // The last operation that ended while the call ran, and was launched before it started.
    auto at = std::upper_bound(ops.begin(), ops.end(), c.end[i], [&](int64_t t, uint32_t x) { return t < o.end[x]; });
    std::optional<uint32_t> waited;
    for (int look = 0; at != ops.begin() && look < 16; ++look) {
      --at;
      if (o.end[*at] <= c.start[i]) break;
      const uint32_t by = b.launcher[*at];
      if (by == kNoNode || c.start[by] < c.start[i]) {
        waited = *at;
        break;
      }
    }
    const size_t f = g.events.function_of(c.name[i]);
    if (!waited) {
      if (g.events.function_role[f] == CallRole::kSynchronize) unwaited[f].push_back(g.duration[i]);
      continue;
    }
    const int64_t latency = c.end[i] - o.end[*waited];
    const uint32_t call_end = EndOf(i);
    if (g.events.function_role[f] == CallRole::kSynchronize) {
      // It waited for the work of every stream of its process that ended meanwhile: one edge
      // from each stream's last such operation, each at the measured wake-up latency.
      std::vector<uint32_t> lanes_seen;
      for (auto back = at + 1; back != ops.begin();) {
        --back;
        if (o.end[*back] <= c.start[i]) break;
        const uint32_t lane = g.lane[g.calls + *back];
        if (std::find(lanes_seen.begin(), lanes_seen.end(), lane) != lanes_seen.end()) continue;
        const uint32_t by = b.launcher[*back];
        if (by != kNoNode && c.start[by] >= c.start[i]) continue;
        lanes_seen.push_back(lane);
        b.Add(EndOf(static_cast<uint32_t>(g.calls + *back)), call_end, EdgeKind::kSync, latency);
        if (lanes_seen.size() >= 64) break;
      }
      waited_syncs.push_back(i);
      continue;
    }
    const int64_t excess = g.duration[i] - times[f].median;
    if (excess < std::max(kBlockedExcessNs, times[f].median) || latency > kBlockedLatencyNs) continue;
    b.Add(EndOf(static_cast<uint32_t>(g.calls + *waited)), call_end, EdgeKind::kBlocked, latency);
    g.duration[i] = times[f].median;
  }
  std::vector<int64_t> own(times.size(), kSyncOwnNs);
  for (size_t f = 0; f < times.size(); ++f) {
    auto& d = unwaited[f];
    if (d.empty()) continue;
    std::nth_element(d.begin(), d.begin() + static_cast<ptrdiff_t>(d.size() / 10), d.end());
    own[f] = d[d.size() / 10];
  }
  for (const uint32_t i : waited_syncs) {
    g.duration[i] = std::min(g.duration[i], own[g.events.function_of(c.name[i])]);
  }
}

}  // namespace kscope::analysis::graph
