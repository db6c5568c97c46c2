// Derives the summary tables (kernel_summary, api_summary, memop_summary, nvtx_summary,
// nvtx_kernel_summary, nvtx_projection_summary) of one run from its event streams. They
// hold what nsys's stats reports compute, unrounded; report/ formats them as nsys does.
#pragma once

#include <cstdint>

#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/nsys_facts.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// Replaces the run's summary rows with those derived from `facts` (all of the run's: from
// the importer), consuming its API durations. Runs inside the caller's transaction.
Status MaterializeNsysSummaries(store::Store& store, int64_t run_id, NsysFacts& facts);
// The same from a stored run's events (LoadNsysEvents).
Status MaterializeNsysSummaries(store::Store& store, int64_t run_id, const NsysEvents& events);

}  // namespace kscope::analysis
