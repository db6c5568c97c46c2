// The import of kscope profile's ncu passes, for `kscope profile` (each pass as it ends) and
// `kscope import DIR` (a run directory's discovery export and every pass at once): one import
// transaction in which each pass's launches are linked to the kernels its plan named, before
// their figures are derived from those links (import/derive_run.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "import/import_files.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::capture {

// One ncu pass as it lies on disk, with its plan.
struct NcuPassFiles {
  int number = 0;                      // 1, 2, ... as the run directory names it (ncu/passN)
  std::vector<std::string> files;      // its report, or its raw and details pages
  std::vector<int64_t> profiled_rows;  // the discovery kernel rows it profiles, in launch order
  bool by_matching = false;            // its filter named functions: linked by matching (PlannedLaunches)
};

struct ImportedNcuPass {
  int number = 0;
  int64_t launches = 0;  // rows its first file brought (its report's or raw page's launches)
  import::LaunchLinks links;
};

struct ImportedNcuPasses {
  std::vector<import::FileOutcome> files;  // every file imported, in order
  std::vector<ImportedNcuPass> passes;     // those of `passes` that had files
};

// Imports `first` (a run directory's discovery export; may be empty) and the passes' files in
// one call of ImportFiles with `options` (into_run, or one new run). Each pass's launches are
// linked to kernel rows of `discovery_run` (0: the run imported into), unless `plan` is false:
// then only matching links them (a run directory whose discovery run is not in this store).
Result<ImportedNcuPasses> ImportNcuPasses(store::Store& store, const std::vector<std::string>& first,
                                          const std::vector<NcuPassFiles>& passes, int64_t discovery_run,
                                          import::ImportOptions options, const import::BeforeCommit& before_commit = {},
                                          bool plan = true);

}  // namespace kscope::capture
