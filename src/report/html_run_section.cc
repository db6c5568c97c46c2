// The run's facts and summary, its notes, findings, and the chart places every section uses.
#include <ostream>
#include <utility>
#include <vector>

#include "report/display_numbers.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"
#include "report/report_text_path.h"

namespace kscope::report {

namespace {
// "98.4% of wall time": a finding's size and its unit.
std::string SizeText(const analysis::Finding& finding) {
  const std::string& unit = finding.size_unit;
  return DecimalText(finding.size) + (unit.empty() || unit[0] == '%' ? "" : " ") + unit;
}

std::string OptionalText(const std::optional<std::string>& s) { return s.value_or(""); }
std::string OptionalText(const std::optional<int64_t>& n) { return n ? std::to_string(*n) : ""; }

// The run's facts as (heading, text) rows, those without a value left out.
std::vector<std::pair<std::string, std::string>> RunFacts(const RunPart& run) {
  const store::Manifest& m = run.manifest;
  std::string tags;
  for (const auto& [key, value] : m.tags) tags.append(tags.empty() ? "" : ", ").append(key).append("=").append(value);
  std::vector<std::pair<std::string, std::string>> facts;
  for (auto& [heading, value] :
       std::vector<std::pair<std::string, std::string>>{{"Run", std::to_string(run.id)},
                                                        {"Label", OptionalText(m.label)},
                                                        {"Model", OptionalText(m.model)},
                                                        {"Data type", OptionalText(m.dtype)},
                                                        {"Batch", OptionalText(m.batch)},
                                                        {"Tokens", OptionalText(m.tokens)},
                                                        {"Source", run.source.value_or("")},
                                                        {"GPU", OptionalText(m.gpu)},
                                                        {"Driver", OptionalText(m.driver)},
                                                        {"CUDA", OptionalText(m.cuda_version)},
                                                        {"nsys (export)", OptionalText(m.nsys_export_version)},
                                                        {"nsys (--version)", OptionalText(m.nsys_tool_version)},
                                                        {"ncu", OptionalText(m.ncu_version)},
                                                        {"Command", OptionalText(m.command)},
                                                        {"Status", run.status},
                                                        {"Imported", run.imported_at},
                                                        {"Tags", tags}}) {
    if (!value.empty()) facts.emplace_back(heading, std::move(value));
  }
  return facts;
}

std::string Duration(int64_t ns) { return DurationText(static_cast<double>(ns)); }
}  // namespace

void WriteChartPlace(std::string_view name, const std::optional<std::string>& empty, std::ostream& out) {
  out << "<div class=\"chart\" data-chart=\"" << EscapeHtml(name) << "\" data-state=\"";
  if (empty) {
    out << "empty\"><p class=\"chart-empty\">" << EscapeHtml(*empty) << "</p></div>\n";
  } else {
    out << "pending\"><div class=\"chart-canvas\"></div></div>\n";
  }
}

void WriteFindings(const std::vector<analysis::Finding>& findings, std::ostream& out) {
  for (const auto& f : findings) {
    out << "<div class=\"finding\"><p><span class=\"size\">" << EscapeHtml(SizeText(f)) << "</span> "
        << EscapeHtml(f.title) << "</p>\n<p>" << EscapeHtml(f.detail) << "</p>\n";
    if (!f.fix.empty()) out << "<p class=\"fix\">Fix: " << EscapeHtml(f.fix) << "</p>\n";
    if (f.worth) out << "<p class=\"worth\">Worth: " << EscapeHtml(WorthText(f)) << "</p>\n";
    out << "</div>\n";
  }
}

void WriteRunSection(const RunReport& report, std::ostream& out) {
  out << "<section id=\"run\">\n<h2>Run</h2>\n";
  WriteHtmlFacts(RunFacts(report.run), out);

  const SummaryPart& s = report.summary;
  out << "<h3>Summary</h3>\n";
  WriteHtmlFacts({{"Wall time", Duration(s.wall_ns)},
                  {"GPU busy", Duration(s.gpu_busy_ns) + " (" + PercentText(s.gpu_busy_pct) + " of the wall time)"},
                  {"Kernel time", Duration(s.kernel_ns)},
                  {"Copy and set time", Duration(s.memop_ns)},
                  {"Kernels", CountText(s.kernels)},
                  {"Copies and sets", CountText(s.memops)},
                  {"CUDA API calls", CountText(s.api_calls)},
                  {"Profiled launches (ncu)", CountText(s.profiled_launches)},
                  {"Profiled kernels (ncu)", CountText(s.profiled_kernels)}},
                 out);
  out << "</section>\n";
}

void WriteNotesSection(const RunReport& report, std::ostream& out) {
  if (report.notes.empty()) return;
  out << "<section id=\"notes\">\n<h2>Notes</h2>\n<ul>\n";
  for (const auto& note : report.notes) out << "<li>" << EscapeHtml(note) << "</li>\n";
  out << "</ul>\n</section>\n";
}

}  // namespace kscope::report
