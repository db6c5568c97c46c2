// Collectives across the ranks of a job: each rank's communication kernels (NCCL...) on each of
// its communication streams, the k-th of one rank's stream matched with the k-th of the
// others' (NCCL runs a communicator's collectives in order on one stream of each rank). A
// matched kernel ends once the last rank's kernel started, plus the transfer: its edges come
// from every other rank's start, at the gap measured after the last one.
#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "analysis/graph/graph_build.h"
#include "analysis/names/communication.h"

namespace kscope::analysis::graph {

void Collectives(GraphBuild& b) {
  DependencyGraph& g = b.g;
  const auto& o = g.events.ops;
  std::vector<std::optional<CollectiveKind>> kind_of(g.events.op_names.size());
  for (size_t n = 0; n < kind_of.size(); ++n) {
    if (auto comm = CommunicationOf(g.events.op_names[n])) kind_of[n] = comm->kind;
  }
  auto kind = [&](uint32_t op) -> std::optional<CollectiveKind> {
    const auto it = std::lower_bound(g.events.op_name_ids.begin(), g.events.op_name_ids.end(), o.name[op]);
    return kind_of[static_cast<size_t>(it - g.events.op_name_ids.begin())];
  };
  g.communication.assign(g.ops, 0);
  for (uint32_t i = 0; i < g.ops; ++i) g.communication[i] = o.is_kernel[i] != 0 && kind(i) ? 1 : 0;
  // Per process: its communication streams (by their first kernel), each stream's kernels.
  std::map<int64_t, std::vector<std::vector<uint32_t>>> per_process;
  for (size_t l = 0; l < g.lanes.size(); ++l) {
    if (g.lanes[l].host) continue;
    std::vector<uint32_t> comm;
    for (const uint32_t n : b.lane_nodes[l]) {
      if (kind(static_cast<uint32_t>(g.op(n)))) comm.push_back(n);
    }
    if (!comm.empty()) per_process[g.lanes[l].global_pid].push_back(std::move(comm));
  }
  if (per_process.size() < 2) return;
  size_t streams = SIZE_MAX;
  for (auto& [pid, lanes] : per_process) {
    std::sort(lanes.begin(), lanes.end(),
              [&](const auto& x, const auto& y) { return g.recorded(StartOf(x[0])) < g.recorded(StartOf(y[0])); });
    streams = std::min(streams, lanes.size());
  }
  for (size_t s = 0; s < streams; ++s) {
    size_t shortest = SIZE_MAX, longest = 0;
    for (const auto& [pid, lanes] : per_process) {
      shortest = std::min(shortest, lanes[s].size());
      longest = std::max(longest, lanes[s].size());
    }
    size_t k = 0;
    for (; k < shortest; ++k) {
      std::vector<uint32_t> group;
      for (const auto& [pid, lanes] : per_process) group.push_back(lanes[s][k]);
      const auto first_kind = kind(static_cast<uint32_t>(g.op(group[0])));
      if (!std::all_of(group.begin(), group.end(),
                       [&](uint32_t n) { return kind(static_cast<uint32_t>(g.op(n))) == first_kind; })) {
        break;  // the streams went out of step: nothing after this is matched
      }
      int64_t last_start = INT64_MIN;
      for (const uint32_t n : group) last_start = std::max(last_start, g.recorded(StartOf(n)));
      for (const uint32_t r : group) {
        const int64_t transfer = g.recorded(EndOf(r)) - last_start;
        if (transfer < 0) continue;  // clocks of the ranks apart: left as recorded
        g.duration[r] = std::min(g.duration[r], transfer);
        for (const uint32_t q : group) {
          if (q != r) b.Add(StartOf(q), EndOf(r), EdgeKind::kCollective, transfer);
        }
      }
    }
    for (const auto& [pid, lanes] : per_process)
      g.gaps.unmatched_collectives += static_cast<int64_t>(lanes[s].size() - k);
    (void)longest;
  }
  for (const auto& [pid, lanes] : per_process) {
    for (size_t s = streams; s < lanes.size(); ++s)
      g.gaps.unmatched_collectives += static_cast<int64_t>(lanes[s].size());
  }
}

}  // namespace kscope::analysis::graph
