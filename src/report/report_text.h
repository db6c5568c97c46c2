// The report (report/run_report.h) for people: a terminal summary and report.md, both
// written from report.json's numbers. Names in Markdown are escaped (<, >, &, |).
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace kscope::report {

void WriteReportSummary(const nlohmann::json& report, std::ostream& out);
void WriteReportMarkdown(const nlohmann::json& report, std::ostream& out);

// For Markdown: &, <, > as entities and | escaped, so a kernel name stays text in a table.
std::string MarkdownText(std::string_view s);

}  // namespace kscope::report
