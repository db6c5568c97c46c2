// The tables of kscope diff (runs: diff_report.h; selections: diff_selections_report.h), each
// with the sentence a view prints instead of its headers when it has no rows: nothing changed,
// appeared or vanished, neither side has NVTX stages, a side has no ncu classes.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/atlas/diff_runs_detail.h"
#include "report/table.h"

namespace kscope::report {

struct DiffTable {
  Table table;
  std::string empty;  // "none: ..." when the table has no rows, else ""
};

// The two sides as the sentences name them: {"run 3", "run 4", "both runs", "neither run"}, or
// {"selection A", "selection B", "both selections", "neither selection"}.
struct DiffSides {
  std::string a, b, both, neither;
  analysis::atlas::DiffSideFacts facts_a, facts_b;
};

// What a table of changes holds, for its sentence.
enum class DiffRows { kFamilies, kKernels, kStages, kFamilyClasses, kKernelClasses };

// The sentence for `rows` of a diff whose sides are `sides`, when that table has no rows.
std::string NoChangeSentence(DiffRows rows, const DiffSides& sides);

// `table` with its sentence when it has no rows.
DiffTable WithSentence(Table table, DiffRows rows, const DiffSides& sides);

// The tables one after the other, a blank line between them. As a text table, a table with no
// rows is its title and its sentence; as CSV, its header alone.
void WriteDiffTables(const std::vector<DiffTable>& tables, Format format, std::ostream& out);

}  // namespace kscope::report
