#include "report/table_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

namespace kscope::report {

namespace {

bool IsNumeric(const Cell& c) { return std::holds_alternative<int64_t>(c) || std::holds_alternative<Decimal>(c); }

// Rows gathered into a buffer and written in blocks: one write per 64 KiB, not per field.
class Buffered : public RowSink {
 public:
  explicit Buffered(std::ostream& out) : out_(out) {}
  ~Buffered() override = default;
  Buffered(const Buffered&) = delete;
  Buffered& operator=(const Buffered&) = delete;

 protected:
  void Put(std::string_view s) {
    buf_ += s;
    if (buf_.size() >= (size_t{1} << 16)) Drain();
  }
  void Drain() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }
  void Finish() {
    Drain();
    out_.flush();
  }

 private:
  std::ostream& out_;
  std::string buf_;
};

class Csv : public Buffered {
 public:
  using Buffered::Buffered;
  void Begin(const std::string& /*title*/, const std::vector<std::string>& columns) override {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i) Put(",");
      Put(CsvField(columns[i]));
    }
    Put("\n");
  }
  void Row(const std::vector<Cell>& row) override {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) Put(",");
      if (const auto* n = std::get_if<int64_t>(&row[i])) {
        Put(fmt::format_int(*n).c_str());
      } else if (const auto* text = std::get_if<std::string>(&row[i]); text != nullptr && PrintableAscii(*text)) {
        PutQuotedIfNeeded(*text);  // what CsvField(CellText(cell)) gives such text, without copies
      } else if (!std::holds_alternative<std::monostate>(row[i])) {
        Put(CsvField(CellText(row[i])));
      }
    }
    Put("\n");
  }
  void End() override { Finish(); }

 private:
  // Text that DisplayText leaves as it is (a trace's kernel names, most of its bytes).
  static bool PrintableAscii(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
  }
  void PutQuotedIfNeeded(std::string_view s) {
    if (s.find_first_of(",\"") == std::string_view::npos) {
      Put(s);
      return;
    }
    Put("\"");
    for (size_t from = 0;;) {
      const size_t quote = s.find('"', from);
      Put(s.substr(from, quote == std::string_view::npos ? std::string_view::npos : quote + 1 - from));
      if (quote == std::string_view::npos) break;
      Put("\"");
      from = quote + 1;
    }
    Put("\"");
  }
};

// {"report": title, "rows": [...]} as WriteJson dumps it with an indent of 2: each row object
// is dumped at depth 2 (four spaces), between the same brackets and commas.
class Json : public Buffered {
 public:
  using Buffered::Buffered;
  void Begin(const std::string& title, const std::vector<std::string>& columns) override {
    columns_ = columns;
    Put("{\n  \"report\": ");
    Put(nlohmann::ordered_json(title).dump(-1, ' ', false, kReplace));
    Put(",\n  \"rows\": [");
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
    Put(rows_++ ? ",\n" : "\n");
    const std::string text = obj.dump(2, ' ', false, kReplace);
    std::string indented = "    ";
    for (char ch : text) {
      indented += ch;
      if (ch == '\n') indented += "    ";
    }
    Put(indented);
  }
  void End() override {
    Put(rows_ ? "\n  ]\n}\n" : "]\n}\n");
    Finish();
  }

 private:
  static constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;
  std::vector<std::string> columns_;
  size_t rows_ = 0;
};

class Text : public Buffered {
 public:
  Text(std::ostream& out, TextLayout layout) : Buffered(out), layout_(std::move(layout)) {}
  void Begin(const std::string& title, const std::vector<std::string>& columns) override {
    if (!title.empty()) Put(title + "\n\n");
    for (size_t i = 0; i < columns.size(); ++i) Put((i ? "  " : "") + Pad(columns[i], i, layout_.numeric[i]));
    Put("\n");
    for (size_t i = 0; i < columns.size(); ++i) Put((i ? "  " : "") + std::string(layout_.width[i], '-'));
    Put("\n");
  }
  void Row(const std::vector<Cell>& row) override {
    for (size_t i = 0; i < row.size(); ++i) {
      // The last column is usually a long name: no trailing padding.
      const std::string text = CellText(row[i]);
      if (i) Put("  ");
      Put(i + 1 == row.size() && !IsNumeric(row[i]) ? text : Pad(text, i, IsNumeric(row[i])));
    }
    Put("\n");
  }
  void End() override { Finish(); }

 private:
  [[nodiscard]] std::string Pad(const std::string& s, size_t col, bool right) const {
    const size_t w = layout_.width[col];
    const std::string fill(w - std::min(w, s.size()), ' ');
    return right ? fill + s : s + fill;
  }
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
