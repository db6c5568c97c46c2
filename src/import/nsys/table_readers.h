// The readers of an nsys export's tables: each writes its rows to the store as an event
// stream and gathers what the run's summaries need.
#pragma once

#include "analysis/nsys_events.h"
#include "import/nsys/read_context.h"

namespace kscope::import::nsys {

// CUPTI_ACTIVITY_KIND_KERNEL, rows of `slice`, on a connection of its own.
Status ReadKernels(FileContext& ctx, Slice slice, FactRegion& facts);
// CUPTI_ACTIVITY_KIND_RUNTIME, rows of `slice`, on a connection of its own.
Status ReadApiCalls(FileContext& ctx, Slice slice, FactRegion& facts);
// CUPTI_ACTIVITY_KIND_MEMCPY and _MEMSET, on `db`.
Status ReadMemops(FileContext& ctx, sql::Db& db, analysis::NsysEvents::Memops& facts);
// The NVTX table (whichever variant the export has), with each range's nesting, on `db`.
Status ReadNvtx(FileContext& ctx, sql::Db& db, analysis::NsysEvents::Nvtx& facts);

}  // namespace kscope::import::nsys
