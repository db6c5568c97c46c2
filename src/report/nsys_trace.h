// nsys's trace reports (cuda_gpu_trace, cuda_api_trace, nvtx_pushpop_trace): one row per event,
// read from the nsys export itself and written row by row as `nsys stats --format csv` prints
// them. The export's own rows are the source: a trace lists columns a stored run does not keep
// (thread priorities, green contexts, NVTX row ids).
#pragma once

#include "report/nsys_report_catalog.h"
#include "report/table_stream.h"
#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::report {

// Streams `report` (a trace report) of the export open as `export_db` to `sink`. The caller
// checks NsysSkipReason first: the tables a report needs are assumed present.
Status StreamNsysTrace(sql::Db& export_db, const NsysReportSpec& report, RowSink& sink);

}  // namespace kscope::report
