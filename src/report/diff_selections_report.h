// `kscope diff` of two selections of runs (analysis/atlas/diff_selections.h) as tables, warning
// lines and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/atlas/diff_selections.h"
#include "report/diff_tables.h"
#include "report/table.h"

namespace kscope::report {

// The selections (their runs) and the whole runs' GPU time and launches per run; the families
// and kernels that changed (runs of each selection that launch them, launches and GPU time per
// run, each `median [min-max]` over the selection's runs, the change of the medians); the NVTX
// stages that changed; the families and kernels whose main class changed. Each table of
// changes with the sentence that says why it has no rows, when it has none.
std::vector<DiffTable> SelectionDiffTables(const analysis::atlas::SelectionDiff& diff);

// "kscope: warning: ..." lines: one per manifest field on which the selections disagree, then
// one per field (or model) on which a selection's own runs disagree.
std::vector<std::string> SelectionDiffWarnings(const analysis::atlas::SelectionDiff& diff);

// The whole diff; docs/atlas.md describes its fields.
nlohmann::json SelectionDiffJson(const analysis::atlas::SelectionDiff& diff);

}  // namespace kscope::report
