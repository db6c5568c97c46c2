#include "report/diff_tables.h"

#include <fmt/format.h>

#include <ostream>

namespace kscope::report {

namespace {

using analysis::atlas::DiffSideFacts;

// Which sides lack something (`count` of the side is 0): "neither run", "run 3", or "" when
// both have it.
std::string Lacking(const DiffSides& s, int64_t DiffSideFacts::*count) {
  const bool a = s.facts_a.*count == 0, b = s.facts_b.*count == 0;
  if (a && b) return s.neither;
  if (a) return s.a;
  if (b) return s.b;
  return "";
}

std::string NoStages(const DiffSides& s) {
  const std::string lacking = Lacking(s, &DiffSideFacts::stages);
  if (lacking == s.neither) return "none: " + s.neither + " has NVTX stages";
  return "none: every NVTX stage has the same instances, GPU time per instance and MFU in " + s.both;
}

// `what`: "family" or "kernel".
std::string NoClassChanges(const DiffSides& s, int64_t DiffSideFacts::*count, const std::string& what) {
  const std::string lacking = Lacking(s, count);
  if (lacking == s.neither) {
    return "none: " + s.neither + " has ncu results with the metrics a bottleneck class needs";
  }
  if (!lacking.empty()) {
    return "none: " + lacking + " has no ncu results with the metrics a bottleneck class needs, so no " + what +
           " has a class on both sides";
  }
  return fmt::format("none: no {} that ncu profiled in {} changed its main bottleneck class", what, s.both);
}

}  // namespace

std::string NoChangeSentence(DiffRows rows, const DiffSides& sides) {
  switch (rows) {
    case DiffRows::kFamilies:
      return "none: every kernel family has the same launches and GPU time in " + sides.both +
             "; none appeared or vanished";
    case DiffRows::kKernels:
      return "none: every kernel has the same launches and GPU time in " + sides.both + "; none appeared or vanished";
    case DiffRows::kStages: return NoStages(sides);
    case DiffRows::kFamilyClasses: return NoClassChanges(sides, &DiffSideFacts::profiled_families, "family");
    case DiffRows::kKernelClasses: return NoClassChanges(sides, &DiffSideFacts::profiled_kernels, "kernel");
  }
  return "";
}

DiffTable WithSentence(Table table, DiffRows rows, const DiffSides& sides) {
  const bool empty = table.rows.empty();
  return {std::move(table), empty ? NoChangeSentence(rows, sides) : std::string()};
}

void WriteDiffTables(const std::vector<DiffTable>& tables, Format format, std::ostream& out) {
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i > 0) out << "\n";
    const DiffTable& t = tables[i];
    if (format == Format::kTable && t.table.rows.empty() && !t.empty.empty()) {
      out << t.table.title << "\n\n" << t.empty << "\n";
      continue;
    }
    Write(t.table, format, out);
  }
}

}  // namespace kscope::report
