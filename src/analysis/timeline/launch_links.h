// Links each GPU operation to the API call that launched it (same correlation id, same
// process) and to every NVTX range that contains that call on the calling thread. This is
// the join behind nsys's nvtx_kern_sum and nvtx_gpu_proj_sum: OpIndex finds a call's
// operations, and CallRanges (the NVTX parent chain) its ranges.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/timeline/nsys_events.h"

namespace kscope::analysis {

struct LaunchLink {
  uint32_t op;                // kernels first, then memory operations
  uint32_t api;               // index of the launching call
  int32_t range;              // NVTX row containing the call; -1 when it lies in no range
  bool other_thread = false;  // the range is on another thread of the calling process
};

// Which ranges an operation is linked to.
enum class LinkScope {
  kSameThread,    // ranges around the call on the calling thread (nsys's projection)
  kOtherThreads,  // also ranges of the process's other threads open when the call started: the
                  // work PyTorch's autograd thread, NCCL or data-loader threads launch while the
                  // main thread is inside a stage
};

// One link per (operation, launching call, enclosing range); an operation whose launch call
// is unknown has no link. Ranges closed on another thread take no part. `open_range_end`
// ends the ranges never closed. With kOtherThreads, the links to other threads' ranges
// (other_thread set) follow each call's own links; a call outside every range of its own
// thread still gets its one link with range -1.
std::vector<LaunchLink> LinkLaunches(const NsysEvents& events, int64_t open_range_end,
                                     LinkScope scope = LinkScope::kSameThread);

}  // namespace kscope::analysis
