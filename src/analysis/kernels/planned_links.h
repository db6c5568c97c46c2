// The profiled launches of a planned ncu run linked to the kernels the plan named: ncu numbers
// the launches it profiles 0, 1, ... in launch order, and the plan (kscope profile's selection)
// knows which discovery launches those are. A link is kept only when the two agree on grid and
// block size, and on the kernel when the names can be compared.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/timeline/run_timeline.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

struct PlannedLinkCounts {
  int64_t linked = 0;
  int64_t mismatched = 0;  // launches that are not the planned kernel (or that the plan lacks)
};

// Links the launches the file `source_id` brought into `run_id`: ncu's k-th profiled launch to
// kernel row `profiled_rows[k]` of `kernels`, the discovery run (kernel_link 'planned').
Result<PlannedLinkCounts> LinkPlannedLaunches(store::Store& store, int64_t run_id, int64_t source_id,
                                              const std::vector<int64_t>& profiled_rows, RunTimeline& kernels);

}  // namespace kscope::analysis
