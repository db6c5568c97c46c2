// A report written row by row, for reports too long to hold (nsys's trace reports): the same
// CSV, text and JSON as table.h's writers give for the same rows, without the rows in memory.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "report/table.h"

namespace kscope::report {

// Receives a report's title and columns once, then its rows in order.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void Begin(const std::string& title, const std::vector<std::string>& columns) = 0;
  virtual void Row(const std::vector<Cell>& row) = 0;
  virtual void End() = 0;
};

// What WriteText needs before the first row: each column's width and which columns are numeric
// (by the first row's cells). A first pass over the rows gathers it.
struct TextLayout {
  std::vector<size_t> width;
  std::vector<bool> numeric;
};

class TextLayoutSink : public RowSink {
 public:
  void Begin(const std::string& title, const std::vector<std::string>& columns) override;
  void Row(const std::vector<Cell>& row) override;
  void End() override {}
  [[nodiscard]] const TextLayout& layout() const { return layout_; }

 private:
  TextLayout layout_;
  bool first_ = true;
};

// Writes to `out` as WriteCsv / WriteJson would; text needs the layout of a first pass.
std::unique_ptr<RowSink> CsvSink(std::ostream& out);
std::unique_ptr<RowSink> JsonSink(std::ostream& out);
std::unique_ptr<RowSink> TextSink(std::ostream& out, TextLayout layout);

}  // namespace kscope::report
