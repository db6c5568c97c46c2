// NVTX stages: each range name (and style) as one stage, projected onto the GPU as nsys's
// nvtx_gpu_proj_sum projects it (the GPU operations whose launching call lies inside the
// range on the same thread, matched by correlation id), with nested ranges as a tree. The
// figures nsys also prints (instances, range time, projected time, GPU operations) come from
// the run's nvtx_projection_summary, which the tests check against nsys's own CSV.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/nsys_events.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

struct StageKernel {
  int64_t name_id = 0;  // demangled kernel name (string id)
  int64_t launches = 0;
  int64_t total_ns = 0;
};

struct Stage {
  int id = 0;
  std::string name;   // as nsys prints it: 'domain:text' (':decode' in the default domain)
  std::string text;   // the range's own text ('decode')
  std::string style;  // 'PushPop' or 'StartEnd'
  int parent = -1;    // id of the enclosing stage (the tightest enclosing range on the thread)
  int depth = 0;
  int64_t instances = 0;  // ranges of this name
  int64_t range_ns = 0;   // their summed durations on the CPU (nsys's nvtx_sum: Total Time)
  // From the projection, as nsys computes it (0 when no GPU work was launched inside):
  int64_t proj_instances = 0;  // instances with GPU work (nsys: Range Instances)
  int64_t proj_ns = 0;         // summed projected durations (nsys: Total Proj Time)
  int64_t proj_range_ns = 0;   // summed range durations of those instances (nsys: Total Range Time)
  int64_t gpu_ops = 0;         // distinct GPU operations launched inside (nsys: Total GPU Ops)
  // What kscope adds: the work launched inside, and the stage's time windows.
  int64_t kernels = 0, kernel_ns = 0, memops = 0, memop_ns = 0;
  std::vector<int64_t> kernel_rows;        // kernel stream rows launched inside, each once
  std::vector<StageKernel> kernels_by_time;  // by kernel name, largest total first
  std::vector<TimeWindow> windows;           // each instance: its start on the CPU to its end or
                                             // the end of the last GPU work it launched, the later
};

// Stages in the order of nsys's nvtx_gpu_proj_sum report (projected time, largest first);
// `id` is the position and `parent` indexes the vector.
// `events`: the run's events when the caller has them loaded (else they are read here).
Result<std::vector<Stage>> ComputeStages(store::Store& store, int64_t run_id, const NsysEvents* events = nullptr);

}  // namespace kscope::analysis
