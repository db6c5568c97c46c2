#include "report/html_table.h"

#include <ostream>

#include "report/html_escape.h"

namespace kscope::report {

namespace {
const char* CellTag(HtmlCell::Kind kind) {
  switch (kind) {
    case HtmlCell::Kind::kNumber: return "<td class=\"num\">";
    case HtmlCell::Kind::kName:
    case HtmlCell::Kind::kKernel: return "<td class=\"name\">";
    case HtmlCell::Kind::kText: break;
  }
  return "<td>";
}
// A kernel's short name, its full name on hover (title) and when expanded (details).
void WriteKernelCell(const HtmlCell& cell, std::ostream& out) {
  if (cell.full == cell.text || cell.text.empty()) {  // no short name: the full one as it is
    out << EscapeHtml(cell.full);
    return;
  }
  out << "<details class=\"kernel\"><summary title=\"" << EscapeHtml(cell.full) << "\">" << EscapeHtml(cell.text)
      << "</summary><code>" << EscapeHtml(cell.full) << "</code></details>";
}
}  // namespace

void WriteHtmlTable(const HtmlTable& table, std::ostream& out) {
  out << "<table>\n<thead><tr>";
  for (const auto& column : table.columns) out << "<th>" << EscapeHtml(column) << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out << "<tr>";
    for (const auto& cell : row) {
      out << CellTag(cell.kind);
      if (cell.kind == HtmlCell::Kind::kKernel) {
        WriteKernelCell(cell, out);
      } else {
        out << EscapeHtml(cell.text);
      }
      out << "</td>";
    }
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
