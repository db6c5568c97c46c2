#include "report/table_stream.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

namespace kscope::report {

namespace {

bool IsNumeric(const Cell& c) { return std::holds_alternative<int64_t>(c) || std::holds_alternative<Decimal>(c); }

class Csv : public RowSink {
 public:
  explicit Csv(std::ostream& out) : out_(out) {}
  void Begin(const std::string& /*title*/, const std::vector<std::string>& columns) override {
    for (size_t i = 0; i < columns.size(); ++i) out_ << (i ? "," : "") << CsvField(columns[i]);
    out_ << "\n";
  }
  void Row(const std::vector<Cell>& row) override {
    for (size_t i = 0; i < row.size(); ++i) out_ << (i ? "," : "") << CsvField(CellText(row[i]));
    out_ << "\n";
  }
  void End() override { out_.flush(); }

 private:
  std::ostream& out_;
};

// {"report": title, "rows": [...]} as WriteJson dumps it with an indent of 2: each row object
// is dumped at depth 2 (four spaces), between the same brackets and commas.
class Json : public RowSink {
 public:
  explicit Json(std::ostream& out) : out_(out) {}
  void Begin(const std::string& title, const std::vector<std::string>& columns) override {
    columns_ = columns;
    out_ << "{\n  \"report\": " << nlohmann::ordered_json(title).dump(-1, ' ', false, kReplace) << ",\n  \"rows\": [";
  }
  void Row(const std::vector<Cell>& row) override {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (size_t i = 0; i < row.size(); ++i) {
      const auto& c = row[i];
      if (std::holds_alternative<int64_t>(c)) {
        obj[columns_[i]] = std::get<int64_t>(c);
      } else if (std::holds_alternative<Decimal>(c)) {
        obj[columns_[i]] = std::get<Decimal>(c).value;
      } else if (std::holds_alternative<std::string>(c)) {
        obj[columns_[i]] = std::get<std::string>(c);
      } else {
        obj[columns_[i]] = nullptr;
      }
    }
    out_ << (rows_++ ? ",\n" : "\n");
    std::string text = obj.dump(2, ' ', false, kReplace);
    out_ << "    ";
    for (char ch : text) {
      out_ << ch;
      if (ch == '\n') out_ << "    ";
    }
  }
  void End() override {
    out_ << (rows_ ? "\n  ]\n}\n" : "]\n}\n");
    out_.flush();
  }

 private:
  static constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;
  std::ostream& out_;
  std::vector<std::string> columns_;
  size_t rows_ = 0;
};

class Text : public RowSink {
 public:
  Text(std::ostream& out, TextLayout layout) : out_(out), layout_(std::move(layout)) {}
  void Begin(const std::string& title, const std::vector<std::string>& columns) override {
    if (!title.empty()) out_ << title << "\n\n";
    for (size_t i = 0; i < columns.size(); ++i) out_ << (i ? "  " : "") << Pad(columns[i], i, layout_.numeric[i]);
    out_ << "\n";
    for (size_t i = 0; i < columns.size(); ++i) out_ << (i ? "  " : "") << std::string(layout_.width[i], '-');
    out_ << "\n";
  }
  void Row(const std::vector<Cell>& row) override {
    for (size_t i = 0; i < row.size(); ++i) {
      // The last column is usually a long name: no trailing padding.
      const std::string text = CellText(row[i]);
      out_ << (i ? "  " : "") << (i + 1 == row.size() && !IsNumeric(row[i]) ? text : Pad(text, i, IsNumeric(row[i])));
    }
    out_ << "\n";
  }
  void End() override { out_.flush(); }

 private:
  [[nodiscard]] std::string Pad(const std::string& s, size_t col, bool right) const {
    const size_t w = layout_.width[col];
    const std::string fill(w - std::min(w, s.size()), ' ');
    return right ? fill + s : s + fill;
  }
  std::ostream& out_;
  TextLayout layout_;
};

}  // namespace

void TextLayoutSink::Begin(const std::string& /*title*/, const std::vector<std::string>& columns) {
  layout_.width.resize(columns.size());
  layout_.numeric.assign(columns.size(), false);
  for (size_t i = 0; i < columns.size(); ++i) layout_.width[i] = columns[i].size();
}

void TextLayoutSink::Row(const std::vector<Cell>& row) {
  for (size_t i = 0; i < row.size() && i < layout_.width.size(); ++i) {
    layout_.width[i] = std::max(layout_.width[i], CellText(row[i]).size());
    if (first_) layout_.numeric[i] = IsNumeric(row[i]);
  }
  first_ = false;
}

std::unique_ptr<RowSink> CsvSink(std::ostream& out) { return std::make_unique<Csv>(out); }
std::unique_ptr<RowSink> JsonSink(std::ostream& out) { return std::make_unique<Json>(out); }
std::unique_ptr<RowSink> TextSink(std::ostream& out, TextLayout layout) {
  return std::make_unique<Text>(out, std::move(layout));
}

}  // namespace kscope::report
