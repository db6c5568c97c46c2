// What an nsys export says about its run: GPU, driver, CUDA and nsys versions, command.
#pragma once

#include <optional>
#include <string>

#include "analysis/timeline/ranks.h"
#include "import/nsys/export_schema.h"
#include "store/store.h"
#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::import::nsys {

// Fills the fields of `m` the export knows; tables it lacks leave them empty.
void LearnManifest(sql::Db& db, const ExportSchema& schema, store::Manifest& m);

// The rank that the environment nsys recorded for the process it launched names (RANK,
// OMPI_COMM_WORLD_RANK, SLURM_PROCID, ...: capture::RankFromEnvironment), when it names one.
std::optional<analysis::EnvRank> LaunchedRank(sql::Db& db, const ExportSchema& schema);

// When the export's capture started on the wall clock (TARGET_INFO_SESSION_START_TIME.utcEpochNs,
// ns since the Unix epoch): the anchor that places the exports of one job's nodes, each on its
// own session clock, on one timeline.
Result<int64_t> SessionStartNs(const std::string& export_path);

}  // namespace kscope::import::nsys
