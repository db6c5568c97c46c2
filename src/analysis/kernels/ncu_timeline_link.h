// Links the ncu launches of a run to its nsys kernels when kscope did not plan them (ncu
// results imported next to an nsys export): a launch matches the kernels with the same name
// (KernelMatchKey: ncu and nsys spell names differently), grid and block, launched inside
// the NVTX range ncu recorded for it (its innermost push/pop range); within such a group the
// k-th profiled launch is linked to the k-th kernel in launch order (ncu numbers its results
// in launch order; the launches it skipped are unknown, so the alignment is the first one).
#pragma once

#include <cstdint>

#include "analysis/timeline/run_timeline.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// Sets kernel_index/kernel_run/kernel_link ('matched') of the unlinked ncu launches of run
// `launches_run` (0: the timeline's own run) to kernels of `timeline` (another run: the
// discovery run a targeted profile ran from); returns how many were linked. A timeline without
// kernels links nothing, and a run without unlinked launches decodes nothing.
Result<int64_t> LinkNcuToTimeline(store::Store& store, RunTimeline& timeline, int64_t launches_run = 0);

// The innermost range name in ncu's NVTX column ('1014  "<default domain>:decode:none:..."'),
// "" when there is none.
std::string InnermostNcuRange(std::string_view nvtx_column);

}  // namespace kscope::analysis
