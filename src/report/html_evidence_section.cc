// report.html's evidence per profiled kernel: each profiled kernel's class, why, the
// metrics the class rests on, and its whole warp-stall breakdown.
#include <ostream>

#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"
#include "report/report_text_stalls.h"

namespace kscope::report {

namespace {

HtmlTable AsHtml(const Table& t) {
  HtmlTable out(t.columns);
  for (const auto& row : t.rows) {
    std::vector<HtmlCell> cells;
    for (const auto& cell : row) cells.push_back({CellText(cell)});
    out.rows.push_back(std::move(cells));
  }
  return out;
}

void WriteEvidenceTable(const RunReport& report, std::ostream& out) {
  HtmlTable table({"Top kernel", "Kernel", "Class", "Why", "Rests on"});
  for (const auto& k : report.profiled) {
    std::string rests_on;
    for (const auto& m : k.verdict.rests_on) rests_on += (rests_on.empty() ? "" : ", ") + m;
    table.rows.push_back(
        {Num(RankText(k)), Kernel(k.short_name, k.name), {k.verdict.bottleneck}, {k.verdict.why}, {rests_on}});
  }
  WriteHtmlTable(table, out);
}

}  // namespace

void WriteEvidenceSection(const RunReport& report, std::ostream& out) {
  out << "<section id=\"evidence\">\n<h2>Evidence per profiled kernel</h2>\n";
  if (report.profiled.empty()) {
    out << "<p class=\"empty\">No evidence: the run has no ncu data.</p>\n</section>\n";
    return;
  }
  WriteEvidenceTable(report, out);
  out << "<h3>Stall breakdown</h3>\n";
  if (const auto none = NoStallsReason(report)) {
    out << "<p class=\"empty\">" << EscapeHtml(*none) << "</p>\n</section>\n";
    return;
  }
  for (const auto& k : report.profiled) {
    if (k.verdict.stalls.empty()) continue;
    out << "<details class=\"stalls\">\n<summary>" << EscapeHtml(StallLine(k)) << "</summary>\n";
    WriteHtmlTable(AsHtml(StallTable(k.verdict)), out);
    out << "</details>\n";
  }
  out << "</section>\n";
}

}  // namespace kscope::report
