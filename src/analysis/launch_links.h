// Links each GPU operation to the API call that launched it (same correlation id, same
// process) and to every NVTX range that contains that call on the calling thread. This is
// the join behind nsys's nvtx_kern_sum and nvtx_gpu_proj_sum: OpIndex finds a call's
// operations, and CallRanges (the NVTX parent chain) its ranges.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/nsys_events.h"

namespace kscope::analysis {

struct LaunchLink {
  uint32_t op;    // kernels first, then memory operations
  uint32_t api;   // index of the launching call
  int32_t range;  // NVTX row containing the call; -1 when it lies in no range
};

// One link per (operation, launching call, enclosing range); an operation whose launch call
// is unknown has no link. Ranges closed on another thread take no part. `open_range_end`
// ends the ranges never closed.
std::vector<LaunchLink> LinkLaunches(const NsysEvents& events, int64_t open_range_end);

}  // namespace kscope::analysis
