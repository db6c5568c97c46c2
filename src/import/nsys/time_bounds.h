// Which event times an nsys export can hold: whole nanoseconds from the session's start, a
// start no later than the end, and nothing after the export's own end
// (ANALYSIS_DETAILS.stopTime). A row outside these bounds would give wrong sums (a text
// read as 0, an end of INT64_MAX), so the readers skip it and record it as an import problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "import/nsys/export_schema.h"
#include "util/sqlite.h"

namespace kscope::import::nsys {

struct TimeProblem {
  std::string what;  // e.g. "ends before it starts"
  std::string raw;   // the values, e.g. "start=10 end=9"
};

// The export's end on the session clock (ns), or INT64_MAX when it does not record one.
int64_t ExportSpanEnd(sql::Db& db, const ExportSchema& schema);

// What is wrong with the start and end columns of `q`'s current row, if anything; neither
// is NULL, except an end that `open_end` allows to be (an NVTX range never closed).
std::optional<TimeProblem> CheckTimes(const sql::Stmt& q, int start_col, int end_col, int64_t span_end,
                                      bool open_end = false);

}  // namespace kscope::import::nsys
