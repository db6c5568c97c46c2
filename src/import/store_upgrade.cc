#include "import/store_upgrade.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "analysis/kernels/launch_figures.h"
#include "analysis/timeline/ranks.h"
#include "import/upgrade_copy.h"
#include "store/schema.h"
#include "util/file_hash.h"
#include "util/interrupt_note.h"

namespace kscope::import {

namespace fs = std::filesystem;

namespace {

// The version an existing store records, read without writing anything; nullopt when the file
// is missing or unreadable (Store::Open then says why).
std::optional<int> ProbeVersion(const std::string& path) {
  std::error_code ec;
  if (path == ":memory:" || !fs::is_regular_file(path, ec)) return std::nullopt;
  auto db = sql::Db::Open(path, sql::OpenMode::kReader);
  if (!db.ok()) return std::nullopt;
  auto version = store::StoredSchemaVersion(*db);
  return version.ok() ? std::optional<int>(*version) : std::nullopt;
}

Error CannotWrite(const std::string& path, int version, const Error& why) {
  return Error{path,
               fmt::format("store of schema version {} must be upgraded to {}, and kscope cannot write it ({})",
                           version, store::kSchemaVersion, why.what),
               "run kscope once with write access to the store and its folder, or copy it somewhere writable"};
}

Status DeriveFigures(store::Store& store, const std::vector<int64_t>& runs) {
  for (int64_t run : runs) KSCOPE_RETURN_IF_ERROR(analysis::MaterializeLaunchFigures(store, run));
  return Status::Ok();
}

// The ranks of every run with nsys kernels and none yet (schema 9 derives them at import), from
// its kernel stream in process order: the environment nsys recorded is in the export alone.
Status DeriveRanks(store::Store& store) {
  auto q = store.db().Prepare(
      "SELECT run_id FROM event_stream WHERE stream = 'kernel' AND rows > 0 AND run_id NOT IN "
      "(SELECT run_id FROM run_rank) ORDER BY run_id");
  if (!q.ok()) return q.error();
  std::vector<int64_t> runs;
  while (q->Step()) runs.push_back(q->Int(0));
  KSCOPE_RETURN_IF_ERROR(q->status());
  for (int64_t run : runs) KSCOPE_RETURN_IF_ERROR(analysis::MaterializeRanks(store, run, std::nullopt));
  return Status::Ok();
}

void PrintUpgradeNote(const std::string& path, const UpgradeDone& done) {
  std::cerr << fmt::format(
      "kscope: note: {}: upgraded from schema version {} to {}; the store as it was is kept at {}\n", path,
      done.schema.from, store::kSchemaVersion, done.backup);
  if (done.schema.runs_with_gaps > 0) {
    std::cerr << fmt::format(
        "kscope: note: {} run(s) lack what only their source files hold (thread names, content hashes): kscope "
        "import --rederive fills it where the files still exist\n",
        done.schema.runs_with_gaps);
  }
}

}  // namespace

Result<std::optional<UpgradeDone>> UpgradeStore(const std::string& path, bool note) {
  const std::optional<int> probed = ProbeVersion(path);
  if (probed == store::kSchemaVersion) KeepCommittedCopies(path);
  if (!probed || *probed <= 0 || *probed >= store::kSchemaVersion) return std::optional<UpgradeDone>();
  auto store = store::Store::OpenForUpgrade(path);
  if (!store.ok()) return CannotWrite(path, *probed, store.error());
  auto tx = sql::Transaction::Begin(store->db());
  if (!tx.ok()) return CannotWrite(path, *probed, tx.error());
  // Another kscope may have upgraded it while this one waited for the lock.
  auto version = store::StoredSchemaVersion(store->db());
  if (!version.ok()) return version.error();
  if (*version >= store::kSchemaVersion) return std::optional<UpgradeDone>();
  UpgradeDone done;
  auto finish = [&]() -> Status {
    // The copy is read through a connection of its own: under this one's write lock no other
    // kscope can change the store, and a reader of a WAL store is not held back by the lock.
    auto reader = sql::Db::Open(path, sql::OpenMode::kReadOnly);
    if (!reader.ok()) return reader.error();
    auto copy = UpgradeCopy::Make(*reader, path, *version);
    if (!copy.ok()) return copy.error();
    auto migrated = store::MigrateSchema(store->db(), *version);
    if (!migrated.ok()) return migrated.error();
    done.schema = std::move(migrated).value();
    KSCOPE_RETURN_IF_ERROR(DeriveFigures(*store, done.schema.runs_to_derive));
    KSCOPE_RETURN_IF_ERROR(DeriveRanks(*store));
    // A signal between the commit and the copy's final name waits for both.
    const HoldInterrupts hold;
    KSCOPE_RETURN_IF_ERROR(tx->Commit());
    done.backup = copy->Keep();
    return Status::Ok();
  };
  // On failure the store is as it was, and the copy (which says nothing more) is removed.
  if (Status st = finish(); !st.ok()) {
    Error e = st.error();
    if (e.where.empty()) e.where = path;
    e.what = fmt::format("cannot upgrade the store from schema version {}: {}", *version, e.what);
    return e;
  }
  if (note) PrintUpgradeNote(path, done);
  return std::optional<UpgradeDone>(std::move(done));
}

Result<store::Store> OpenStore(const std::string& path, sql::OpenMode mode) {
  auto upgraded = UpgradeStore(path);
  if (!upgraded.ok()) return upgraded.error();
  return store::Store::Open(path, mode);
}

}  // namespace kscope::import
