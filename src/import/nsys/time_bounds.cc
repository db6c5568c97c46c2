#include "import/nsys/time_bounds.h"

#include <fmt/format.h>

namespace kscope::import::nsys {

int64_t ExportSpanEnd(sql::Db& db, const ExportSchema& schema) {
  if (!schema.HasColumn("ANALYSIS_DETAILS", "stopTime")) return INT64_MAX;
  auto q = db.Prepare("SELECT max(stopTime) FROM ANALYSIS_DETAILS WHERE typeof(stopTime) = 'integer'");
  if (!q.ok() || !q->Step() || q->IsNull(0)) return INT64_MAX;
  return q->Int(0);
}

std::optional<TimeProblem> CheckTimes(const sql::Stmt& q, int start_col, int end_col, int64_t span_end, bool open_end) {
  const bool has_end = !(open_end && q.IsNull(end_col));
  for (const auto& [col, name] : {std::pair{start_col, "start"}, std::pair{end_col, "end"}}) {
    if (col == end_col && !has_end) continue;
    if (sqlite3_column_type(q.raw(), col) != SQLITE_INTEGER) {
      return TimeProblem{fmt::format("{} is not a whole number of nanoseconds", name),
                         fmt::format("{}={}", name, q.Text(col))};
    }
  }
  const int64_t start = q.Int(start_col);
  const int64_t end = has_end ? q.Int(end_col) : start;
  const std::string raw =
      has_end ? fmt::format("start={} end={}", start, end) : fmt::format("start={} end=NULL", start);
  if (end < start) return TimeProblem{"ends before it starts", raw};
  if (start < 0 || end > span_end) {
    return TimeProblem{fmt::format("outside the export's time span (0 to {} ns)", span_end), raw};
  }
  return std::nullopt;
}

}  // namespace kscope::import::nsys
