// What kscope diff of two selections (diff_selections.h) reads of each selection: its runs,
// chosen as kscope atlas chooses them, and what each run says (diff_runs_detail.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/atlas/atlas.h"
#include "analysis/atlas/diff_runs_detail.h"

namespace kscope::analysis::atlas {

struct SelectionSide {
  std::vector<int64_t> runs;           // by id
  std::vector<ComparedValues> fields;  // per run: ComparedFields, then the manifest's model
  std::vector<RunKernels> kernels;
  std::vector<std::map<std::string, StageFacts>> stages;
  RunClasses classes;  // the profiled launches of all its runs together
};

// What the side had to compare (DiffSideFacts).
DiffSideFacts FactsOf(const SelectionSide& side);

// The runs a selection matches, by id. `text`: the selection as written (SelectionText), for
// errors: it matches no run, names a run not in the database, or a tag key no run has.
Result<std::vector<int64_t>> SelectSide(store::Store& store, const RunFilter& filter, const std::string& text);

// What those runs say; an error when one has no nsys kernels.
Result<SelectionSide> LoadSide(store::Store& store, const std::vector<int64_t>& runs, const AnalysisOptions& config,
                               std::optional<int64_t> rank);

// Per field of `fields` (one list per run, in one order), the distinct values the runs know,
// sorted (none: no run knows it).
using FieldValues = std::vector<std::pair<std::string, std::vector<std::string>>>;
FieldValues ValuesOfFields(const std::vector<ComparedValues>& fields);

}  // namespace kscope::analysis::atlas
