// Advice that fits the workload: the timeline findings' fixes rewritten where the workload
// already does what they would ask for (CUDA graphs replayed, torch.compile used), so that a
// run is never told to adopt what it uses.
#pragma once

#include <vector>

#include "analysis/iterations/workload_traits.h"
#include "analysis/kernels/bottleneck.h"
#include "analysis/timeline/timeline.h"

namespace kscope::analysis {

void FitAdvice(const WorkloadTraits& traits, std::vector<Finding>& findings);

// A profiled kernel's advice (`kscope kernel`), likewise: a launch-bound kernel of a run that
// replays CUDA graphs or uses torch.compile is not told to adopt them.
void FitKernelAdvice(const WorkloadTraits& traits, Diagnosis& d);

}  // namespace kscope::analysis
