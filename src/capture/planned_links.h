// After a deep pass: each profiled launch is linked to the discovery run's kernel that the
// selection planned it to be (ncu numbers the launches it profiles 0, 1, ... in launch
// order, and the plan knows which discovery launches those are). A link is kept only when
// the two agree on grid and block size, and on the kernel when the names can be compared.
#pragma once

#include <cstdint>

#include "capture/selection.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::capture {

struct LinkCounts {
  int64_t linked = 0;
  int64_t mismatched = 0;
};

// `source_id`: the pass's imported raw page; `discovery_run`: the run holding the kernels.
Result<LinkCounts> LinkPlannedLaunches(store::Store& store, int64_t run_id, int64_t source_id, int64_t discovery_run,
                                       const NcuPass& pass);

}  // namespace kscope::capture
