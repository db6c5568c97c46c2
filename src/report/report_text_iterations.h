// What the terminal summary and report.md show of a run's loop and phases
// (report/iteration_part.h): the headline, the phases table and the iterations table.
#pragma once

#include <string>
#include <vector>

#include "report/run_report.h"
#include "report/table.h"

namespace kscope::report {

// "Headline (steady iterations): Launch-bound: ..." and its evidence; the whole run's verdict
// when it differs; what the workload already does. Empty without a headline.
std::vector<std::string> HeadlineLines(const RunReport& r);

// The run's phases; no rows when it has none.
Table PhasesTable(const RunReport& r);

// The loop's iterations (at most `max_rows`: the first ones and the last), no rows without a
// loop; `summary`: one sentence on how the loop was found and what its steady part measures.
Table IterationsTable(const IterationPart& p, size_t max_rows);
std::string IterationsSummary(const IterationPart& p);

// "sampled by nsys (every kernel, 812 samples of the steady windows): SMs active 41.0%, ...":
// nsys's GPU metrics over a stage's or the loop's steady windows.
std::string SampledLine(const analysis::SampledGpuMetrics& m);

}  // namespace kscope::report
