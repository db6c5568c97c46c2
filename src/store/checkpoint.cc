#include "store/checkpoint.h"

#include <fmt/format.h>

#include "util/sqlite_errors.h"

namespace kscope::store {

Status CheckpointCommitted(sql::Db& db, const std::string& committed) {
  if (db.path().empty() || db.path() == ":memory:") return Status::Ok();
  // A reader who may not write reads the file itself now: the log is moved in later.
  const auto guard =
      sql::FileGuard::TakeWithin(db.path(), sql::FileGuard::Kind::kExclusive, std::chrono::milliseconds(500));
  if (!guard) return Status::Ok();
  const int rc = sqlite3_wal_checkpoint_v2(db.raw(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  if (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED) return Status::Ok();
  Error cause = sql::DbError(db.raw(), "checkpoint");
  return Error{db.path(),
               fmt::format("{} is committed but could not be written from {}-wal into the database file ({})",
                           committed, db.path(), cause.what),
               fmt::format("keep {}-wal beside it (it holds {}); free space or lift the file size limit, then any "
                           "kscope command on the store moves it in",
                           db.path(), committed)};
}

}  // namespace kscope::store
