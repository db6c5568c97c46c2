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
#include <memory>
#include <nlohmann/json.hpp>
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

class RunDirScratch;  // the decompressed copies of a directory's .zst files, removed with it

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

// An ncu pass of a run directory that left files: its report, or its raw and details pages.
struct RunDirPass {
  int number = 0;
  std::vector<int64_t> profiled_rows;  // the discovery kernel rows it profiled, in ncu's order
  std::vector<std::string> files;
};

// A run directory as kscope profile left it: its manifest and the files it imported.
struct RunDirFiles {
  nlohmann::json manifest;
  bool own_discovery = true;  // it ran nsys itself (a targeted run names its discovery_run)
  std::string nsys;           // its discovery export; "" when it has none
  std::vector<RunDirPass> passes;
  RunDirOutcome out;  // dir, profiled run, status and notes, as read
  std::shared_ptr<RunDirScratch> scratch;
  // Each decompressed copy's original, the path the store records.
  [[nodiscard]] std::map<std::string, std::string> originals() const;
};

// A run directory's manifest.json (or manifest.json.zst), checked to be one kscope profile wrote.
Result<nlohmann::json> ReadRunDirManifest(const std::filesystem::path& dir);

// Reads a run directory's manifest and finds its files (FILE or FILE.zst). A pass whose report
// is missing is an error, or with `partial` a note and the status incomplete.
Result<RunDirFiles> ReadRunDir(const std::filesystem::path& dir, bool partial);

// The run's description in the store, from the manifest, with the command line's on top.
store::Manifest RunDirManifest(const nlohmann::json& m, const store::Manifest& user);

// Imports one run directory as a new run, in one transaction. `user` holds what the command
// line adds (--label, --tag): it wins over the directory's own. `runs` maps the profiled run
// ids of directories imported earlier (in the same call) to their new runs: a targeted run's
// launches are linked to its discovery run when that one came in too; it gains the new entry.
Result<RunDirOutcome> ImportRunDir(store::Store& store, const std::filesystem::path& dir, const store::Manifest& user,
                                   const import::ImportOptions& options, std::map<int64_t, int64_t>& runs);

}  // namespace kscope::capture
