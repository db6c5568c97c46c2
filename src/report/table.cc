#include "report/table.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "util/display_text.h"

namespace kscope::report {

std::string CellText(const Cell& c) {
  struct Visitor {
    std::string operator()(std::monostate) const { return {}; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(const Decimal& d) const { return d.text; }
    std::string operator()(const std::string& s) const { return DisplayText(s); }
  };
  return std::visit(Visitor{}, c);
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

namespace {
bool IsNumeric(const Cell& c) { return std::holds_alternative<int64_t>(c) || std::holds_alternative<Decimal>(c); }
}  // namespace

void WriteCsv(const Table& t, std::ostream& out) {
  for (size_t i = 0; i < t.columns.size(); ++i) out << (i ? "," : "") << CsvField(t.columns[i]);
  out << "\n";
  for (const auto& row : t.rows) {
    for (size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << CsvField(CellText(row[i]));
    out << "\n";
  }
}

void WriteText(const Table& t, std::ostream& out) {
  std::vector<size_t> width(t.columns.size());
  for (size_t i = 0; i < t.columns.size(); ++i) width[i] = t.columns[i].size();
  for (const auto& row : t.rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], CellText(row[i]).size());
  }
  auto pad = [&](const std::string& s, size_t w, bool right) {
    const std::string fill(w - std::min(w, s.size()), ' ');
    return right ? fill + s : s + fill;
  };
  if (!t.title.empty()) out << t.title << "\n\n";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const bool numeric = !t.rows.empty() && IsNumeric(t.rows[0][i]);
    out << (i ? "  " : "") << pad(t.columns[i], width[i], numeric);
  }
  out << "\n";
  for (size_t i = 0; i < t.columns.size(); ++i) out << (i ? "  " : "") << std::string(width[i], '-');
  out << "\n";
  for (const auto& row : t.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      // The last column is usually a long name: no trailing padding.
      const std::string text = CellText(row[i]);
      out << (i ? "  " : "")
          << (i + 1 == row.size() && !IsNumeric(row[i]) ? text : pad(text, width[i], IsNumeric(row[i])));
    }
    out << "\n";
  }
}

void WriteJson(const Table& t, std::ostream& out) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : t.rows) {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (size_t i = 0; i < row.size(); ++i) {
      const auto& c = row[i];
      if (std::holds_alternative<int64_t>(c)) {
        obj[t.columns[i]] = std::get<int64_t>(c);
      } else if (std::holds_alternative<Decimal>(c)) {
        obj[t.columns[i]] = std::get<Decimal>(c).value;
      } else if (std::holds_alternative<std::string>(c)) {
        obj[t.columns[i]] = std::get<std::string>(c);
      } else {
        obj[t.columns[i]] = nullptr;
      }
    }
    rows.push_back(std::move(obj));
  }
  nlohmann::ordered_json doc = {{"report", t.title}, {"rows", rows}};
  // Bytes that are not UTF-8 as U+FFFD: the output is valid JSON whatever a name holds.
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

void Write(const Table& t, Format format, std::ostream& out) {
  switch (format) {
    case Format::kCsv: WriteCsv(t, out); break;
    case Format::kJson: WriteJson(t, out); break;
    case Format::kTable: WriteText(t, out); break;
  }
}

}  // namespace kscope::report
