#include "analysis/timeline/rank_kernels.h"

#include <optional>

namespace kscope::analysis {

std::vector<RankKernels> SplitKernelsByRank(const NsysEvents& events, const std::vector<RunRank>& ranks,
                                            const std::unordered_map<int64_t, std::string>& names) {
  std::unordered_map<int64_t, size_t> of_pid;  // global pid -> index into ranks
  for (size_t r = 0; r < ranks.size(); ++r) of_pid[ranks[r].global_pid] = r;
  std::unordered_map<int64_t, std::optional<CommunicationKernel>> comm_of;  // name id -> its kind
  for (const auto& [id, name] : names) comm_of.emplace(id, CommunicationOf(name));
  std::vector<RankKernels> out(ranks.size());
  const auto& k = events.kernels;
  for (size_t i = 0; i < k.start.size(); ++i) {
    auto rank = of_pid.find(k.global_pid[i]);
    if (rank == of_pid.end()) continue;
    const KernelLaunch launch{static_cast<int64_t>(i), {k.start[i], k.end[i]}};
    auto comm = comm_of.find(k.name[i]);
    if (comm != comm_of.end() && comm->second) {
      out[rank->second].communication.push_back({launch, comm->second->kind});
    } else {
      out[rank->second].compute.push_back(launch);
    }
  }
  return out;
}

IntervalSet ComputeUnion(const RankKernels& kernels) {
  std::vector<TimeWindow> windows;
  windows.reserve(kernels.compute.size());
  for (const KernelLaunch& c : kernels.compute) windows.push_back(c.window);
  return MergeIntervals(std::move(windows));
}

}  // namespace kscope::analysis
