// The sections of report.html, each written from its part of report.json: a heading, the
// place of its chart (or why there is none) and tables of the same numbers. Every text from
// the report is escaped.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kscope::report {

// A chart's container: render.js draws chart `name` into it, or, with `empty` set, the page
// says that instead of drawing an empty chart.
void WriteChartPlace(std::string_view name, const std::optional<std::string>& empty, std::ostream& out);

// A row's bottleneck class, or "not profiled" when it has none.
std::string BottleneckText(const nlohmann::json& row);

// Findings of the timeline diagnosis ({kind, title, detail, size, size_unit, fix}).
void WriteFindings(const nlohmann::json& findings, std::ostream& out);

void WriteRunSection(const nlohmann::json& report, std::ostream& out);
void WriteTopKernelsSection(const nlohmann::json& report, std::ostream& out);
void WriteRooflineSection(const nlohmann::json& report, std::ostream& out);
void WriteStagesSection(const nlohmann::json& report, std::ostream& out);
void WriteBottleneckMixSection(const nlohmann::json& report, std::ostream& out);
void WriteTimelineSection(const nlohmann::json& report, std::ostream& out);
void WriteNotesSection(const nlohmann::json& report, std::ostream& out);

}  // namespace kscope::report
