// The named steps of import::CopyRuns (run_copy.h), each run inside its transaction on the
// target's connection with the source attached as `src`. The maps they leave in the connection's
// temp schema (temp.map_run: old, new, copied; temp.map_string; temp.map_<table> for the tables
// whose own ids are given anew) are what the later steps read.
#pragma once

#include <string>

#include "import/run_copy.h"
#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::import::copy {

// temp.map_run: the runs copied (copied = 1) with their new ids, and the earlier runs (0).
Status MapRuns(sql::Db& db, const std::string& source_name, const RunCopyOptions& options, RunCopyOutcome& out);
// One line naming the first copied run whose source file the target holds already.
Status RefuseDuplicates(sql::Db& db, const std::string& source_name);
// The strings the copied runs use (in rows and inside the event streams) added to the target's
// string table, and temp.map_string from the source's ids to the target's.
Status MapStrings(sql::Db& db);
// temp.map_<table> for each table of runs' rows with an id of its own (source_file, event_chunk,
// import_problem): the ids after the target's largest, in the source's order.
Status MapRowIds(sql::Db& db, bool keep_ids);
// Every table holding runs' rows, copied with its ids mapped (the event streams' string columns
// excepted: CopyStringChunks).
Status CopyTables(sql::Db& db);
// The chunks of the event streams' string columns, decoded, mapped and encoded again.
Status CopyStringChunks(sql::Db& db);
// Launches linked to kernels of a run that was not copied: said in a note (CopyTables drops the link).
Status NoteUnlinkedLaunches(sql::Db& db, RunCopyOutcome& out);
// A capture manifest's discovery_run (a run id of the source) mapped to the target's, or dropped.
Status RemapCaptureLinks(sql::Db& db, const RunCopyOutcome& out);
// PRAGMA foreign_key_check over the target: a copy never leaves a row without its parent.
Status CheckForeignKeys(sql::Db& db, const std::string& source_name);
// The temp tables gone (after the commit; a rollback removes them itself).
Status DropMaps(sql::Db& db);

// The tables of the target that hold runs' rows, in the order their DDL made them.
Result<std::vector<std::string>> RunTables(sql::Db& db);
// SQL condition on event_chunk alias x: the chunk is of a string column.
std::string StringChunkCondition();

}  // namespace kscope::import::copy
