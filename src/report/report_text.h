// The report (report/run_report.h) for people: a terminal summary and report.md, both
// written from report.json's numbers. Names are shown as DisplayText (util/display_text.h)
// and in Markdown escaped too (<, >, &, |).
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

namespace kscope::report {

void WriteReportSummary(const nlohmann::json& report, std::ostream& out);
void WriteReportMarkdown(const nlohmann::json& report, std::ostream& out);

// For Markdown: &, <, > as entities and | escaped, so a kernel name stays text in a table.
std::string MarkdownText(std::string_view s);

}  // namespace kscope::report
