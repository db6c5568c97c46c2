// A report as data: named columns and typed cells, written out as CSV, an aligned text
// table, or JSON by writers that escape properly.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

namespace kscope::report {

// A number as nsys prints it: the value, and its exact text (e.g. "2256.9", "442.536").
struct Decimal {
  double value;
  std::string text;
};

using Cell = std::variant<std::monostate, int64_t, Decimal, std::string>;

struct Table {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

enum class Format { kTable, kCsv, kJson };

void WriteCsv(const Table& t, std::ostream& out);
void WriteText(const Table& t, std::ostream& out);
void WriteJson(const Table& t, std::ostream& out);
void Write(const Table& t, Format format, std::ostream& out);

std::string CellText(const Cell& c);

// One CSV field with RFC 4180 quoting, as Python's csv module writes it (quoted only when needed).
std::string CsvField(const std::string& s);

// Writes a table row by row as its rows come (kscope query), so that memory does not grow with
// the rows: CSV and JSON as WriteCsv and WriteJson write the same table. The text table
// measures its column widths over its first kMeasuredRows rows (held until then), each at
// most kMaxColumnWidth bytes; a later cell longer than its column, or any cell longer than
// kMaxColumnWidth, is cut to fit and ends in "..." (CSV and JSON give every value whole); a
// number is never cut (it has at most 25 characters).
class RowWriter {
 public:
  static constexpr size_t kMeasuredRows = 1000;
  static constexpr size_t kMaxColumnWidth = 120;

  RowWriter(std::string title, std::vector<std::string> columns, Format format, std::ostream& out);
  void Row(std::vector<Cell> row);
  // Writes what is held and ends the document.
  void Finish();

 private:
  void WriteHeld();
  void WriteTextRow(const std::vector<Cell>& row);
  void WriteJsonRow(const std::vector<Cell>& row);

  std::string title_;
  std::vector<std::string> columns_;
  Format format_;
  std::ostream& out_;
  std::vector<std::vector<Cell>> held_;  // the text table's first rows, until widths are known
  std::vector<size_t> width_;            // empty until measured
  std::vector<bool> numeric_;
  int64_t rows_ = 0;
};

}  // namespace kscope::report
