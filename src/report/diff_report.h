// `kscope diff A B`: the diff of two runs (analysis/atlas/diff.h) as tables and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/atlas/diff.h"
#include "report/diff_tables.h"
#include "report/table.h"

namespace kscope::report {

// The whole runs' GPU time and launches in A and B, then the families and the kernels that
// changed: launches and GPU time in each, the change, and whether the row appeared or vanished;
// the NVTX stages that changed (instances with the min-max of their GPU time, the median GPU
// time per steady instance, MFU); the families and kernels whose main class changed. Each
// table of changes with the sentence that says why it has no rows, when it has none.
std::vector<DiffTable> DiffTables(const analysis::atlas::RunDiff& diff);

// One warning line per manifest field the runs disagree on: "kscope: warning: ...".
std::vector<std::string> DiffWarnings(const analysis::atlas::RunDiff& diff);

// The whole diff; docs/atlas.md describes its fields.
nlohmann::json DiffJson(const analysis::atlas::RunDiff& diff);

// Parts shared with the diff of two selections (diff_selections_report.h): "changed",
// "appeared" or "vanished"; the families (`family`: rows are kernels, with their family) whose
// main class changed, as a table and as JSON.
std::string DiffChangeName(analysis::atlas::Change c);
Table DiffClassesTable(const std::string& title, const std::string& key,
                       const std::vector<analysis::atlas::ClassChangeRow>& rows, bool family);
nlohmann::json DiffClassesJson(const std::vector<analysis::atlas::ClassChangeRow>& rows, bool kernel);

}  // namespace kscope::report
