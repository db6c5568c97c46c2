// Links each GPU operation to the API call that launched it (same correlation id, same
// process) and to every NVTX range that contains that call on the calling thread. This is
// the join behind nsys's nvtx_kern_sum and nvtx_gpu_proj_sum.
#pragma once

#include <cstdint>
#include <vector>

namespace kscope::analysis {

struct OpKeys {  // one entry per GPU operation
  std::vector<int64_t> correlation;
  std::vector<int64_t> global_pid;
};
struct ApiCalls {  // one entry per API call
  std::vector<int64_t> start, end, global_tid, correlation;
};
struct Ranges {  // NVTX ranges that nest (closed on their own thread)
  std::vector<int64_t> start, end, global_tid;
};

struct LaunchLink {
  uint32_t op;
  uint32_t api;
  int32_t range;  // -1: the call lies in no range
};

// One link per (operation, launching call, enclosing range); an operation whose launch call
// is unknown has no link at all.
std::vector<LaunchLink> LinkLaunches(const OpKeys& ops, const ApiCalls& api, const Ranges& ranges);

}  // namespace kscope::analysis
