// nsys's projection figures of the stages (analysis/stages/stages.h: proj_instances,
// proj_ns, proj_range_ns, gpu_ops), computed from events in memory by nsys's rule (as
// analysis/timeline/nsys_summaries.cc computes nvtx_gpu_proj_sum at import). For a selection
// of a run's events, one rank's (analysis/timeline/rank_selection.h), whose figures the
// stored nvtx_projection_summary does not hold: it is the whole export's.
#pragma once

#include <vector>

#include "analysis/stages/stages.h"
#include "analysis/timeline/nsys_events.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// Replaces the projection figures of `stages` (ComputeStages over `events`) with those of
// `events`, and puts the stages back in nvtx_gpu_proj_sum's order (ids and parents follow).
Status ProjectStages(store::Store& store, const NsysEvents& events, std::vector<Stage>& stages);

}  // namespace kscope::analysis
