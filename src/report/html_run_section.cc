// The run's facts and summary, its notes, findings, and the chart places every section uses.
#include <ostream>
#include <utility>
#include <vector>

#include "report/display_numbers.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"
#include "report/json_fields.h"

namespace kscope::report {

namespace {
// "98.4% of wall time": a finding's size and its unit.
std::string SizeText(const nlohmann::json& finding) {
  const std::string unit = TextField(finding, "size_unit");
  return DecimalText(NumberField(finding, "size")) + (unit.empty() || unit[0] == '%' ? "" : " ") + unit;
}
}  // namespace

void WriteChartPlace(std::string_view name, const std::optional<std::string>& empty, std::ostream& out) {
  out << "<div class=\"chart\" data-chart=\"" << EscapeHtml(name) << "\" data-state=\"";
  if (empty) {
    out << "empty\"><p class=\"chart-empty\">" << EscapeHtml(*empty) << "</p></div>\n";
  } else {
    out << "pending\"><div class=\"chart-canvas\"></div></div>\n";
  }
}

void WriteFindings(const nlohmann::json& findings, std::ostream& out) {
  for (const auto& f : findings) {
    out << "<div class=\"finding\"><p><span class=\"size\">" << EscapeHtml(SizeText(f)) << "</span> "
        << EscapeHtml(TextField(f, "title")) << "</p>\n<p>" << EscapeHtml(TextField(f, "detail")) << "</p>\n";
    if (const std::string fix = TextField(f, "fix"); !fix.empty()) {
      out << "<p class=\"fix\">Fix: " << EscapeHtml(fix) << "</p>\n";
    }
    out << "</div>\n";
  }
}

void WriteRunSection(const nlohmann::json& report, std::ostream& out) {
  const nlohmann::json& run = Field(report, "run");
  std::string tags;
  if (const nlohmann::json& t = Field(run, "tags"); t.is_object()) {
    for (const auto& [key, value] : t.items()) {
      tags += (tags.empty() ? "" : ", ") + key + "=" + ValueText(value);
    }
  }
  std::vector<std::pair<std::string, std::string>> facts;
  for (const auto& [heading, key] :
       std::vector<std::pair<std::string, std::string>>{{"Run", "id"},
                                                        {"Label", "label"},
                                                        {"Model", "model"},
                                                        {"Data type", "dtype"},
                                                        {"Batch", "batch"},
                                                        {"Tokens", "tokens"},
                                                        {"GPU", "gpu"},
                                                        {"Driver", "driver"},
                                                        {"CUDA", "cuda_version"},
                                                        {"nsys (export)", "nsys_export_version"},
                                                        {"nsys (--version)", "nsys_tool_version"},
                                                        {"ncu", "ncu_version"},
                                                        {"Command", "command"},
                                                        {"Status", "status"},
                                                        {"Imported", "imported_at"}}) {
    if (std::string value = TextField(run, key); !value.empty()) facts.emplace_back(heading, std::move(value));
  }
  if (!tags.empty()) facts.emplace_back("Tags", tags);
  out << "<section id=\"run\">\n<h2>Run</h2>\n";
  WriteHtmlFacts(facts, out);

  const nlohmann::json& s = Field(report, "summary");
  out << "<h3>Summary</h3>\n";
  WriteHtmlFacts({{"Wall time", DurationText(NumberField(s, "wall_ns"))},
                  {"GPU busy", DurationText(NumberField(s, "gpu_busy_ns")) + " (" +
                                   PercentText(NumberField(s, "gpu_busy_pct")) + " of the wall time)"},
                  {"Kernel time", DurationText(NumberField(s, "kernel_ns"))},
                  {"Copy and set time", DurationText(NumberField(s, "memop_ns"))},
                  {"Kernels", CountText(IntegerField(s, "kernels"))},
                  {"Copies and sets", CountText(IntegerField(s, "memops"))},
                  {"CUDA API calls", CountText(IntegerField(s, "api_calls"))},
                  {"Profiled launches (ncu)", CountText(IntegerField(s, "profiled_launches"))},
                  {"Profiled kernels (ncu)", CountText(IntegerField(s, "profiled_kernels"))}},
                 out);
  out << "</section>\n";
}

void WriteNotesSection(const nlohmann::json& report, std::ostream& out) {
  const nlohmann::json& notes = ListField(report, "notes");
  if (notes.empty()) return;
  out << "<section id=\"notes\">\n<h2>Notes</h2>\n<ul>\n";
  for (const auto& note : notes) {
    out << "<li>" << EscapeHtml(ValueText(note)) << "</li>\n";
  }
  out << "</ul>\n</section>\n";
}

}  // namespace kscope::report
