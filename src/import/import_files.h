// Imports files into a store as one transaction: every file is read, its events written and
// the run's summaries derived, or nothing at all is kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::import {

struct ImportOptions {
  store::Manifest manifest;   // what the user says about the run
  bool run_per_file = false;  // one run per file instead of one run for all
  size_t threads = 0;         // reader threads per file; 0: one per core
};

struct FileOutcome {
  std::string path;
  int64_t run_id = 0;
  int64_t rows_read = 0;
  int64_t rows_skipped = 0;
};

Result<std::vector<FileOutcome>> ImportFiles(store::Store& store, const std::vector<std::string>& paths,
                                             const ImportOptions& options);

}  // namespace kscope::import
