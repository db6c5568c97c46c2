// The units an .ncu-rep leaves out, and how ncu's raw page prints a value. The report stores
// bare numbers; ncu knows each metric's unit from its metric library, and its raw page picks
// a decimal prefix per column. kscope's table of units comes from recorded raw pages
// (scripts/gen_ncu_metric_units.py); docs/ncu-rep.md gives the printing rules.
#pragma once

#include <string>
#include <string_view>

#include "import/ncu/rep_reader.h"

namespace kscope::import::ncu {

// ncu's base unit of `metric` ("byte", "ns", "hz", "sector/s", "%", "cycle", ...; "" for
// counts). Metrics missing from the table: "%" when the name says pct, else "".
std::string_view RepBaseUnit(std::string_view metric);

// How the raw page prints one metric column: the unit of its units row and the divisor
// from the base unit, chosen from the column's largest magnitude over all launches.
struct RawColumn {
  std::string unit;  // as printed in the units row
  double scale = 1;  // base-unit value / printed value
  bool all_zero = false;
};
RawColumn ChooseRawColumn(std::string_view base_unit, double max_abs, bool all_zero);

// The cell ncu's raw page prints for `v` in a column printed as `column` ("no data" when
// the metric has no value).
std::string FormatRawCell(const RepValue& v, const RawColumn& column);

// The cell for a metric with `instances` instance values: empty when ncu recorded only the
// instances and no value of the whole (as for the Triage metrics of --set full).
std::string FormatRawMetric(const RepValue& v, size_t instances, const RawColumn& column);

}  // namespace kscope::import::ncu
