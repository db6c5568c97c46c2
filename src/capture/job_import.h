// The run directories one job wrote on several nodes (a profile per node, or per rank, each
// with its own nsys session) imported as one multi-rank run: `kscope import DIR...` groups the
// directories whose manifests record the same job id (kscope profile --job, SLURM_JOB_ID,
// TORCHELASTIC_RUN_ID: capture/rank.h), or all of them under `kscope import --job ID`. Each
// node's events are placed on one timeline by its nsys session's own start on the wall clock
// (TARGET_INFO_SESSION_START_TIME), and its processes are kept apart from the other nodes' by
// giving them a host of their own, so that each process stays a rank (analysis/timeline/ranks.h).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "capture/run_dir_import.h"
#include "import/import_files.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::capture {

// The job id a run directory's manifest records ("job": {"id": ...}) when it can be one node's
// profile of that job, else "": a targeted run (--discovery) or a sweep's point has none.
Result<std::string> JobIdOf(const std::filesystem::path& dir);

// The directories in groups: those of one job id together (in the order first seen), each
// directory without one alone, and so is a second directory of a rank a group already holds
// (two runs of one rank in one allocation are not two nodes). `job` (kscope import --job) puts
// them all in one group.
Result<std::vector<std::vector<std::filesystem::path>>> GroupByJob(const std::vector<std::filesystem::path>& dirs,
                                                                   const std::string& job);

// Imports the directories of one job as one run, in one transaction: every node's discovery
// export (nodes in rank order, as their manifests record it, else by session start), then every
// node's ncu passes, each profiled launch linked to the kernel its node's plan named. The run's
// manifest keeps the first node's, with "job" listing every directory and its placement.
Result<RunDirOutcome> ImportJobRunDirs(store::Store& store, const std::vector<std::filesystem::path>& dirs,
                                       const std::string& job, const store::Manifest& user,
                                       const import::ImportOptions& options);

}  // namespace kscope::capture
