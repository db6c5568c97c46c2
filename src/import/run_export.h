// kscope export RUN... --out DIR: each run as a self-contained exported run directory,
// DIR/<run id>/, that `kscope import DIR` brings back identical into any store, on another
// machine or with a later kscope (docs/store.md):
//   manifest.json   what the folder is ("kscope_export": format, schema version, the run, its
//                   files), for people and for the import
//   run.kscope.db   the run's stored rows: a kscope store of the exporting kscope's schema
//                   holding that run alone, under its own id (docs/schema.md documents it)
//   files/          the run's source files (nsys export, ncu reports and pages) where they are
//                   still where the store says and unchanged, named <source file id>-<name>
// The import copies the rows (import/run_copy.h): what the run's views show does not depend on
// the importing kscope deriving it again, and a later kscope upgrades the rows as it upgrades any
// older store. The files travel so that what reads them (nsys's trace reports, kscope import
// --rederive) finds them on the other machine: the import points the run's source files at them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::import {

struct ExportOptions {
  std::vector<int64_t> runs;
  std::string out_dir;
  bool with_files = true;  // copy the source files too (--rows-only: not)
};

struct ExportedRun {
  int64_t run_id = 0;
  std::string dir;
  int64_t files = 0;               // source files copied
  std::vector<std::string> notes;  // files left out, runs added
};

// Writes each run's folder whole or not at all (built under a private name in DIR, then renamed).
// A run whose launches are linked to another run's kernels (a targeted run's discovery run) brings
// that run along. A folder DIR/<id> that exists already is refused.
Result<std::vector<ExportedRun>> ExportRuns(store::Store& store, const ExportOptions& options);

// True when `dir` holds a manifest.json with "kscope_export".
bool IsExportedRun(const std::filesystem::path& dir);

struct ImportedExport {
  int64_t exported_id = 0;  // its id in the store it was exported from
  int64_t run_id = 0;       // its id here
  int64_t files = 0;        // source files that travelled with it, now read from the folder
  std::vector<std::string> notes;
};

// Brings an exported run into `store` in one transaction. `user` (--label, --tag, ...) wins over
// what the run says; `earlier` maps exported ids to runs here of folders imported before (a
// targeted run's discovery run) and gains this one. A run whose source file the store holds
// already is refused unless `force`.
Result<ImportedExport> ImportExportedRun(store::Store& store, const std::filesystem::path& dir,
                                         const store::Manifest& user, bool force, std::map<int64_t, int64_t>& earlier);

}  // namespace kscope::import
