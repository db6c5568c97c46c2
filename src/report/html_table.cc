#include "report/html_table.h"

#include <ostream>

#include "report/html_escape.h"

namespace kscope::report {

namespace {
const char* CellTag(HtmlCell::Kind kind) {
  switch (kind) {
    case HtmlCell::Kind::kNumber: return "<td class=\"num\">";
    case HtmlCell::Kind::kName: return "<td class=\"name\">";
    case HtmlCell::Kind::kText: break;
  }
  return "<td>";
}
}  // namespace

void WriteHtmlTable(const HtmlTable& table, std::ostream& out) {
  out << "<table>\n<thead><tr>";
  for (const auto& column : table.columns) out << "<th>" << EscapeHtml(column) << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out << "<tr>";
    for (const auto& cell : row) out << CellTag(cell.kind) << EscapeHtml(cell.text) << "</td>";
    out << "</tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

void WriteHtmlFacts(const std::vector<std::pair<std::string, std::string>>& facts, std::ostream& out) {
  out << "<table class=\"facts\">\n<tbody>\n";
  for (const auto& [heading, value] : facts) {
    out << "<tr><th>" << EscapeHtml(heading) << "</th><td>" << EscapeHtml(value) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

}  // namespace kscope::report
