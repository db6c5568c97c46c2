// An HTML table of text cells, every cell and heading escaped on the way out.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace kscope::report {

struct HtmlCell {
  // kNumber: right-aligned; kName: a name, monospace; kKernel: a kernel's short name (text)
  // with its full name (full) on hover and on expand.
  enum class Kind { kText, kNumber, kName, kKernel };
  std::string text;
  Kind kind = Kind::kText;
  std::string full{};
};

inline HtmlCell Num(std::string text) { return {std::move(text), HtmlCell::Kind::kNumber}; }
inline HtmlCell Name(std::string text) { return {std::move(text), HtmlCell::Kind::kName}; }
inline HtmlCell Kernel(std::string short_name, std::string full_name) {
  return {std::move(short_name), HtmlCell::Kind::kKernel, std::move(full_name)};
}

struct HtmlTable {
  explicit HtmlTable(std::vector<std::string> headings) : columns(std::move(headings)) {}
  std::vector<std::string> columns;
  std::vector<std::vector<HtmlCell>> rows;
};

void WriteHtmlTable(const HtmlTable& table, std::ostream& out);

// A two-column table of facts: one row per (heading, value) pair.
void WriteHtmlFacts(const std::vector<std::pair<std::string, std::string>>& facts, std::ostream& out);

}  // namespace kscope::report
