// After a commit, the write-ahead log moved into the database file while the command still runs,
// so that a failure to do so (a full disk, a file size limit) is said instead of lost: SQLite
// would otherwise try at close and keep silent. The committed transaction is not lost then: it
// stays in STORE-wal, and the next kscope command that can write the store moves it in.
#pragma once

#include <string>

#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::store {

// A passive checkpoint (never waits for readers; frames a reader still needs are moved later,
// and all of them while a reader who may not write reads the file itself: sqlite_file_guard.h).
// Its error names the store, the cause and `committed` (what is safe in the log, e.g. "run 3").
Status CheckpointCommitted(sql::Db& db, const std::string& committed);

}  // namespace kscope::store
