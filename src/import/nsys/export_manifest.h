// What an nsys export says about its run: GPU, driver, CUDA and nsys versions, command.
#pragma once

#include <optional>

#include "analysis/timeline/ranks.h"
#include "import/nsys/export_schema.h"
#include "store/store.h"
#include "util/sqlite.h"

namespace kscope::import::nsys {

// Fills the fields of `m` the export knows; tables it lacks leave them empty.
void LearnManifest(sql::Db& db, const ExportSchema& schema, store::Manifest& m);

// The rank that the environment nsys recorded for the process it launched names (RANK,
// OMPI_COMM_WORLD_RANK, SLURM_PROCID, ...: capture::RankFromEnvironment), when it names one.
std::optional<analysis::EnvRank> LaunchedRank(sql::Db& db, const ExportSchema& schema);

}  // namespace kscope::import::nsys
