// The input shapes of the PyTorch op that launched each profiled launch, where the nsys capture
// recorded them (nsys --pytorch=autograd-shapes-nvtx: op ranges with ", sizes = [[...]]").
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "analysis/timeline/run_timeline.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// Per ncu launch id of the run, "aten::mm [[2048, 1024], [1024, 3584]]": the innermost op range
// with sizes on the thread of the call that launched its nsys kernel (ncu_launch.kernel_index).
// Launches without such a range are left out; a run whose kernels' runs have no op range with
// sizes (checked first, on their NVTX summaries) gives none without loading any events. The
// kernels' runs' events and links come from `timelines`, decoded there once.
Result<std::unordered_map<int64_t, std::string>> LaunchShapes(store::Store& store, int64_t run_id,
                                                              RunTimelines& timelines);

}  // namespace kscope::analysis
