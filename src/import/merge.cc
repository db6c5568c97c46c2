#include "import/merge.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "import/store_upgrade.h"
#include "store/checkpoint.h"
#include "store/migrate.h"
#include "store/schema.h"

namespace kscope::import {

namespace fs = std::filesystem;

namespace {

Result<int> VersionOf(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return Error{
        path, "a folder, not a kscope store",
        fmt::format("to merge a store, name its .db file (its --db or $KSCOPE_DB); to import run directories or "
                    "exported runs: kscope import {}",
                    path)};
  }
  if (!fs::exists(path, ec)) {
    return Error{path, "no such store", "name the .db file of the other store (its --db or $KSCOPE_DB)"};
  }
  if (!fs::is_regular_file(path, ec)) {
    return Error{path, "not a file, so not a kscope store",
                 "name the .db file of the other store (its --db or $KSCOPE_DB)"};
  }
  auto db = sql::Db::Open(path, sql::OpenMode::kReader);
  if (!db.ok()) return db.error();
  auto version = store::StoredSchemaVersion(*db);
  if (!version.ok()) return version.error();
  if (*version <= 0) {
    return Error{path, "not a kscope store yet (it is empty: being created?)", "wait for its first import to finish"};
  }
  if (*version > store::kSchemaVersion) {
    return Error{path,
                 fmt::format("store of schema version {}, written by a newer kscope (this one reads up to {})",
                             *version, store::kSchemaVersion),
                 "merge with the kscope that wrote it"};
  }
  return *version;
}

}  // namespace

Result<SourceStore> SourceStore::Open(const std::string& path) {
  auto version = VersionOf(path);
  if (!version.ok()) return version.error();
  // Attached directly when of today's schema and this user may write it and its folder (SQLite
  // needs its -shm beside it); else read from a private copy, upgraded when older.
  const std::string folder = fs::absolute(path).parent_path().string();
  const bool writable = ::access(path.c_str(), W_OK) == 0 && ::access(folder.c_str(), W_OK) == 0;
  if (*version == store::kSchemaVersion && writable) return SourceStore(std::nullopt, path, 0);
  auto dir = TempDir::Make("kscope-merge-");
  if (!dir.ok()) return dir.error();
  const std::string copy = dir->path() + "/source.db";
  {
    auto db = sql::Db::Open(path, sql::OpenMode::kReader);
    if (!db.ok()) return db.error();
    KSCOPE_RETURN_IF_ERROR(store::CopyDatabase(*db, copy));
  }
  if (*version == store::kSchemaVersion) return SourceStore(std::move(dir).value(), copy, 0);
  auto upgraded = UpgradeStore(copy, /*note=*/false);
  if (!upgraded.ok()) {
    Error e = upgraded.error();
    e.where = path;
    return e;
  }
  return SourceStore(std::move(dir).value(), copy, *version);
}

bool IsKscopeStore(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  auto db = sql::Db::Open(path, sql::OpenMode::kReader);
  return db.ok() && db->TableExists("kscope_meta");
}

Result<MergeOutcome> MergeStore(const std::string& target_path, const std::string& other,
                                const RunCopyOptions& options) {
  std::error_code ec;
  if (fs::equivalent(other, target_path, ec)) {
    return Error{other, "is the store being merged into", "name another store"};
  }
  // The other store first: a merge that cannot read it makes no store.
  auto source = SourceStore::Open(other);
  if (!source.ok()) return source.error();
  auto target = OpenStore(target_path, sql::OpenMode::kCreate);
  if (!target.ok()) return target.error();
  auto copied = CopyRuns(*target, source->path(), other, options);
  if (!copied.ok()) return copied.error();
  KSCOPE_RETURN_IF_ERROR(target->CheckStillThere());
  KSCOPE_RETURN_IF_ERROR(store::CheckpointCommitted(target->db(), "the merged runs"));
  return MergeOutcome{std::move(copied).value(), source->upgraded_from()};
}

}  // namespace kscope::import
