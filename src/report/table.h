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

}  // namespace kscope::report
