// Each rank's kernels split into compute and communication (analysis/names/communication.h):
// one split for every view of a job's ranks, the rank figures (rank_figures.h) and the atlas's
// communication part (atlas/communication.cc).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/names/communication.h"
#include "analysis/timeline/intervals.h"
#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/ranks.h"

namespace kscope::analysis {

struct KernelLaunch {
  int64_t row = 0;    // in the run's kernel stream (NsysEvents::kernels)
  TimeWindow window;  // its start to its end on the GPU
  [[nodiscard]] int64_t ns() const { return window.end - window.start; }
};

struct CommunicationLaunch : KernelLaunch {
  CollectiveKind kind = CollectiveKind::kOther;
};

struct RankKernels {
  std::vector<KernelLaunch> compute;               // kernels that wait on no peer, in stream order
  std::vector<CommunicationLaunch> communication;  // communication kernels, in stream order
};

// Per rank (as `ranks` orders them), its kernels split; a kernel of a process that is not in
// `ranks` is left out. `names`: the kernel names (string ids of events.kernels.name).
std::vector<RankKernels> SplitKernelsByRank(const NsysEvents& events, const std::vector<RunRank>& ranks,
                                            const std::unordered_map<int64_t, std::string>& names);

// The union of a rank's compute kernels on its GPU.
IntervalSet ComputeUnion(const RankKernels& kernels);

}  // namespace kscope::analysis
