// The sections of report.html, each rendered from its part of the typed report
// (report/run_report.h): a heading, the place of its chart (or why there is none) and tables
// of the same numbers. Every text from the report is escaped.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/timeline/timeline.h"
#include "report/run_report.h"

namespace kscope::report {

// A chart's container: render.js draws chart `name` into it, or, with `empty` set, the page
// says that instead of drawing an empty chart.
void WriteChartPlace(std::string_view name, const std::optional<std::string>& empty, std::ostream& out);

// A bottleneck class, or "not profiled" when there is none.
std::string BottleneckText(std::string_view bottleneck);

// Findings of the timeline diagnosis.
void WriteFindings(const std::vector<analysis::Finding>& findings, std::ostream& out);

void WriteRunSection(const RunReport& report, std::ostream& out);
void WriteTopKernelsSection(const RunReport& report, std::ostream& out);
// What one step waits on (report.critical_path), when the run has steps.
void WriteCriticalPathSection(const RunReport& report, std::ostream& out);
void WriteRooflineSection(const RunReport& report, std::ostream& out);
// Each profiled top kernel's class, what it rests on, and its stall breakdown
// (html_evidence_section.cc).
void WriteEvidenceSection(const RunReport& report, std::ostream& out);
void WriteStagesSection(const RunReport& report, std::ostream& out);
void WriteBottleneckMixSection(const RunReport& report, std::ostream& out);
// A run of several ranks only: the per-rank table and the straggler.
void WriteRanksSection(const RunReport& report, std::ostream& out);
void WriteTimelineSection(const RunReport& report, std::ostream& out);
void WriteNotesSection(const RunReport& report, std::ostream& out);
// The top of the page: an incomplete run's banner and the headline (html_iterations_section.cc).
void WriteHeadlineSection(const RunReport& report, std::ostream& out);
// The run's phases and the loop found without NVTX.
void WriteIterationsSection(const RunReport& report, std::ostream& out);

}  // namespace kscope::report
