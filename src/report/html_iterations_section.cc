// report.html's parts about the run's loop: the incomplete run's banner and the headline at
// the top, the phases and iterations after the run's facts.
#include <algorithm>
#include <ostream>

#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"
#include "report/report_text_iterations.h"

namespace kscope::report {

namespace {

HtmlTable ToHtml(const Table& t) {
  HtmlTable out(t.columns);
  for (const auto& row : t.rows) {
    std::vector<HtmlCell> cells;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string text = CellText(row[i]);
      cells.push_back(i == 0 ? HtmlCell{std::move(text)} : Num(std::move(text)));
    }
    out.rows.push_back(std::move(cells));
  }
  return out;
}

}  // namespace

void WriteHeadlineSection(const RunReport& report, std::ostream& out) {
  if (report.incomplete) {
    out << "<section id=\"incomplete\" class=\"incomplete\">\n<p><strong>" << EscapeHtml(*report.incomplete)
        << "</strong></p>\n</section>\n";
  }
  const auto lines = HeadlineLines(report);
  if (lines.empty()) return;
  out << "<section id=\"headline\">\n<h2>" << EscapeHtml(lines.front()) << "</h2>\n";
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    out << "<p>" << EscapeHtml(line.substr(std::min(line.find_first_not_of(' '), line.size()))) << "</p>\n";
  }
  out << "</section>\n";
}

void WriteIterationsSection(const RunReport& report, std::ostream& out) {
  if (report.phases.empty() && !report.iterations) return;
  out << "<section id=\"iterations\">\n<h2>Phases and iterations</h2>\n";
  if (!report.phases.empty()) WriteHtmlTable(ToHtml(PhasesTable(report)), out);
  if (report.iterations) {
    const IterationPart& p = *report.iterations;
    out << "<p>" << EscapeHtml(IterationsSummary(p)) << "</p>\n";
    if (p.note) out << "<p>Note: " << EscapeHtml(*p.note) << ".</p>\n";
    WriteHtmlTable(ToHtml(IterationsTable(p, 1000)), out);
    if (p.gpu_metrics) out << "<p>Steady iterations " << EscapeHtml(SampledLine(*p.gpu_metrics)) << "</p>\n";
    for (const auto& n : p.mfu.notes) out << "<p>" << EscapeHtml(n) << "</p>\n";
    WriteFindings(p.findings, out);
  }
  out << "</section>\n";
}

}  // namespace kscope::report
