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

namespace {

// `text` cut to at most `width` bytes, ending in "..." when cut, never inside a UTF-8 sequence.
std::string CutTo(std::string text, size_t width) {
  if (text.size() <= width) return text;
  constexpr std::string_view kMore = "...";
  size_t keep = width > kMore.size() ? width - kMore.size() : 0;
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  text.resize(keep);
  return text + std::string(kMore.substr(0, std::min(kMore.size(), width)));
}

nlohmann::ordered_json JsonRow(const std::vector<std::string>& columns, const std::vector<Cell>& row) {
  nlohmann::ordered_json obj = nlohmann::ordered_json::object();
  for (size_t i = 0; i < row.size(); ++i) {
    const auto& c = row[i];
    if (std::holds_alternative<int64_t>(c)) {
      obj[columns[i]] = std::get<int64_t>(c);
    } else if (std::holds_alternative<Decimal>(c)) {
      obj[columns[i]] = std::get<Decimal>(c).value;
    } else if (std::holds_alternative<std::string>(c)) {
      obj[columns[i]] = std::get<std::string>(c);
    } else {
      obj[columns[i]] = nullptr;
    }
  }
  return obj;
}

std::string Dump(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

RowWriter::RowWriter(std::string title, std::vector<std::string> columns, Format format, std::ostream& out)
    : title_(std::move(title)), columns_(std::move(columns)), format_(format), out_(out) {
  switch (format_) {
    case Format::kCsv:
      for (size_t i = 0; i < columns_.size(); ++i) out_ << (i ? "," : "") << CsvField(columns_[i]);
      out_ << "\n";
      break;
    case Format::kJson:
      out_ << "{\n  \"report\": " << Dump(nlohmann::ordered_json(title_), -1) << ",\n  \"rows\": [";
      break;
    case Format::kTable: break;
  }
}

void RowWriter::Row(std::vector<Cell> row) {
  switch (format_) {
    case Format::kCsv:
      for (size_t i = 0; i < row.size(); ++i) out_ << (i ? "," : "") << CsvField(CellText(row[i]));
      out_ << "\n";
      break;
    case Format::kJson: WriteJsonRow(row); break;
    case Format::kTable:
      if (width_.empty()) {
        held_.push_back(std::move(row));
        if (held_.size() >= kMeasuredRows) WriteHeld();
      } else {
        WriteTextRow(row);
      }
      break;
  }
  ++rows_;
}

void RowWriter::WriteJsonRow(const std::vector<Cell>& row) {
  // As WriteJson's dump(2) of the whole document: each row an object four spaces in.
  const std::string text = Dump(JsonRow(columns_, row), 2);
  out_ << (rows_ == 0 ? "\n    " : ",\n    ");
  for (char c : text) {
    out_ << c;
    if (c == '\n') out_ << "    ";
  }
}

void RowWriter::WriteHeld() {
  width_.assign(columns_.size(), 0);
  numeric_.assign(columns_.size(), false);
  for (size_t i = 0; i < columns_.size(); ++i) {
    width_[i] = std::min(kMaxColumnWidth, columns_[i].size());
    numeric_[i] = !held_.empty() && i < held_[0].size() && IsNumeric(held_[0][i]);
  }
  for (const auto& row : held_) {
    for (size_t i = 0; i < row.size() && i < width_.size(); ++i) {
      width_[i] = std::max(width_[i], std::min(kMaxColumnWidth, CellText(row[i]).size()));
    }
  }
  if (!title_.empty()) out_ << title_ << "\n\n";
  for (size_t i = 0; i < columns_.size(); ++i) {
    const std::string name = CutTo(columns_[i], width_[i]);
    const std::string fill(width_[i] - std::min(width_[i], name.size()), ' ');
    out_ << (i ? "  " : "") << (numeric_[i] ? fill + name : name + fill);
  }
  out_ << "\n";
  for (size_t i = 0; i < columns_.size(); ++i) out_ << (i ? "  " : "") << std::string(width_[i], '-');
  out_ << "\n";
  for (const auto& row : held_) WriteTextRow(row);
  held_.clear();
  held_.shrink_to_fit();
}

void RowWriter::WriteTextRow(const std::vector<Cell>& row) {
  for (size_t i = 0; i < row.size() && i < width_.size(); ++i) {
    const bool numeric = IsNumeric(row[i]);
    // The last column is usually a long name: cut at the bound, not padded.
    const bool last = i + 1 == row.size() && !numeric;
    const std::string text = numeric ? CellText(row[i]) : CutTo(CellText(row[i]), last ? kMaxColumnWidth : width_[i]);
    const std::string fill(last ? 0 : width_[i] - std::min(width_[i], text.size()), ' ');
    out_ << (i ? "  " : "") << (numeric ? fill + text : text + fill);
  }
  out_ << "\n";
}

void RowWriter::Finish() {
  switch (format_) {
    case Format::kCsv: break;
    case Format::kJson: out_ << (rows_ == 0 ? "]\n}\n" : "\n  ]\n}\n"); break;
    case Format::kTable:
      if (width_.empty()) WriteHeld();
      break;
  }
  out_.flush();
}

void Write(const Table& t, Format format, std::ostream& out) {
  switch (format) {
    case Format::kCsv: WriteCsv(t, out); break;
    case Format::kJson: WriteJson(t, out); break;
    case Format::kTable: WriteText(t, out); break;
  }
}

}  // namespace kscope::report
