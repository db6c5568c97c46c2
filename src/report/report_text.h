// The report (report/run_report.h) for people: a terminal summary and report.md, both
// rendered from the typed report. Names are shown as DisplayText (util/display_text.h) and in
// Markdown escaped too (<, >, &, |).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "report/run_report.h"
#include "report/table.h"

namespace kscope::report {

void WriteReportSummary(const RunReport& report, std::ostream& out);
void WriteReportMarkdown(const RunReport& report, std::ostream& out);

// For Markdown: &, <, > as entities and | escaped, so a kernel name stays text in a table.
std::string MarkdownText(std::string_view s);

// A table as Markdown, every cell through MarkdownText.
void WriteMarkdownTable(const Table& t, std::ostream& out);

}  // namespace kscope::report
