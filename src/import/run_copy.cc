#include "import/run_copy.h"

#include <fmt/format.h>

#include "import/run_copy_steps.h"

namespace kscope::import {

namespace {

// ATTACH is refused inside a transaction, so the source is attached around it, and detached
// whatever happens.
class Attached {
 public:
  static Result<Attached> Make(sql::Db& db, const std::string& path) {
    auto q = db.Prepare("ATTACH DATABASE ?1 AS src");
    if (!q.ok()) return q.error();
    q->Bind(1, path);
    KSCOPE_RETURN_IF_ERROR(q->Run());
    return Attached(db);
  }
  Attached(Attached&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Attached(const Attached&) = delete;
  Attached& operator=(const Attached&) = delete;
  Attached& operator=(Attached&&) = delete;
  ~Attached() {
    if (db_ != nullptr) (void)db_->Exec("DETACH DATABASE src");
  }

 private:
  explicit Attached(sql::Db& db) : db_(&db) {}
  sql::Db* db_;
};

Status CopyInTransaction(sql::Db& db, const std::string& source_name, const RunCopyOptions& options,
                         RunCopyOutcome& out) {
  KSCOPE_RETURN_IF_ERROR(db.Exec("PRAGMA defer_foreign_keys=ON"));
  KSCOPE_RETURN_IF_ERROR(copy::MapRuns(db, source_name, options, out));
  if (options.refuse_duplicates) KSCOPE_RETURN_IF_ERROR(copy::RefuseDuplicates(db, source_name));
  KSCOPE_RETURN_IF_ERROR(copy::MapStrings(db));
  KSCOPE_RETURN_IF_ERROR(copy::MapRowIds(db, options.keep_ids));
  KSCOPE_RETURN_IF_ERROR(copy::CopyTables(db));
  KSCOPE_RETURN_IF_ERROR(copy::CopyStringChunks(db));
  KSCOPE_RETURN_IF_ERROR(copy::NoteUnlinkedLaunches(db, out));
  KSCOPE_RETURN_IF_ERROR(copy::RemapCaptureLinks(db, out));
  return copy::CheckForeignKeys(db, source_name);
}

}  // namespace

Result<RunCopyOutcome> CopyRuns(store::Store& target, const std::string& source_path, const std::string& source_name,
                                const RunCopyOptions& options,
                                const std::function<Status(const RunCopyOutcome&)>& before_commit) {
  sql::Db& db = target.db();
  auto attached = Attached::Make(db, source_path);
  if (!attached.ok()) {
    return Error{source_name, fmt::format("cannot read it as a store ({})", attached.error().what),
                 "name a kscope store (a .db file that kscope import wrote)"};
  }
  RunCopyOutcome out;
  {
    auto tx = sql::Transaction::Begin(db);
    if (!tx.ok()) return tx.error();
    Status st = CopyInTransaction(db, source_name, options, out);
    if (st.ok() && before_commit) st = before_commit(out);
    if (st.ok()) st = tx->Commit();
    if (!st.ok()) return st.error();
  }
  (void)copy::DropMaps(db);
  return out;
}

}  // namespace kscope::import
