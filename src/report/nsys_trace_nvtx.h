// nvtx_pushpop_trace: every NVTX push/pop range of an export with its place in its thread's
// stack (level, parent, children and their time), as nsys computes it.
#pragma once

#include <string>

#include "report/table_stream.h"
#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::report {

// Holds one small record per push/pop range (names interned), not the export's rows.
Status NvtxPushPopTrace(sql::Db& export_db, const std::string& title, RowSink& sink);

}  // namespace kscope::report
