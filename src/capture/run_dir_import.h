// Importing run directories that kscope profile wrote elsewhere (a GPU machine, a cluster's
// nodes, a sweep) into this store, each as one run that equals the run as profiled: its nsys
// export and each ncu pass (its exported pages where the directory has them: made before
// kscope profile read reports itself, or with ncu.import=export; else its report, read
// natively), each profiled launch linked to the kernel its plan named, its label, tags and
// capture manifest. Directories that retention compressed (FILE.zst) are read too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "import/import_files.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::capture {

// True when `dir` holds manifest.json (or manifest.json.zst): a run directory.
bool IsRunDir(const std::filesystem::path& dir);

// The run directories a path names: itself when it is one, else the run directories directly
// inside it (a profile.runs_dir), in run id order so that a discovery run comes before the
// targeted runs made from it. A folder holding none is an error.
Result<std::vector<std::filesystem::path>> FindRunDirs(const std::filesystem::path& path);

struct RunDirOutcome {
  std::string dir;
  int64_t run_id = 0;        // its run in this store
  int64_t profiled_run = 0;  // its run id where it was profiled (the directory's name)
  int64_t files = 0;         // nsys exports, ncu pages and reports imported
  int64_t rows = 0;          // rows read from them
  int64_t linked = 0;        // profiled launches linked to their planned kernel
  std::string status;        // the run's status as profiled (complete, incomplete)
  std::vector<std::string> notes;
};

// Imports one run directory as a new run, in one transaction. `user` holds what the command
// line adds (--label, --tag): it wins over the directory's own. `runs` maps the profiled run
// ids of directories imported earlier (in the same call) to their new runs: a targeted run's
// launches are linked to its discovery run when that one came in too; it gains the new entry.
Result<RunDirOutcome> ImportRunDir(store::Store& store, const std::filesystem::path& dir, const store::Manifest& user,
                                   const import::ImportOptions& options, std::map<int64_t, int64_t>& runs);

}  // namespace kscope::capture
