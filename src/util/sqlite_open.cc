// Opening and closing connections (util/sqlite.h's Db::Open and DbCloser): how a reader who may
// not write the store's folder reads it while writers come and go, and how a connection that may
// write keeps its checkpoints out of the file while such a reader reads it (sqlite_file_guard.h).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "util/sqlite.h"
#include "util/sqlite_errors.h"

namespace kscope::sql {

namespace fs = std::filesystem;

namespace {

// SQLite's default: a commit that leaves the log this many pages long moves it into the file.
constexpr int kAutoCheckpointFrames = 1000;
// How long a connection that may write waits, at its close, for another's checkpoint or close.
constexpr std::chrono::milliseconds kCloserPatience{500};
// How long a reader who may not write keeps choosing again while writers come and go.
constexpr std::chrono::seconds kReaderRetry{30};

// Whether this process may write `path` and create its -wal and -shm files beside it.
bool MayWrite(const std::string& path) {
  std::error_code ec;
  const fs::path dir = fs::absolute(path, ec).parent_path();
  return !ec && ::access(path.c_str(), W_OK) == 0 && ::access(dir.c_str(), W_OK) == 0;
}

bool InReadOnlyFolder(const std::string& path) {
  std::error_code ec;
  // A -wal file may hold committed pages; a -journal file, a crashed writer's half-written
  // pages to undo: either way the file alone is not the database, and immutable would read it.
  if (path == ":memory:" || fs::exists(path + "-wal", ec) || fs::exists(path + "-journal", ec)) return false;
  const fs::path dir = fs::absolute(path, ec).parent_path();
  return !ec && ::access(dir.c_str(), W_OK) != 0;
}

// file:PATH?immutable=1, with the characters a URI gives a meaning escaped.
std::string ImmutableUri(const std::string& path) {
  std::error_code ec;
  std::string uri = "file:";
  for (char c : fs::absolute(path, ec).lexically_normal().string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

// SQLite's automatic checkpoint after a commit, taken only while no reader reads the file itself.
int GuardedAutoCheckpoint(void* /*unused*/, sqlite3* db, const char* schema, int frames) {
  if (frames < kAutoCheckpointFrames) return SQLITE_OK;
  const char* file = sqlite3_db_filename(db, schema);
  if (auto guard = FileGuard::TryTake(file != nullptr ? file : "", FileGuard::Kind::kExclusive)) {
    (void)sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  }
  return SQLITE_OK;
}

// What a reader who may not write meets when a writer's -wal and -shm come or go between its
// look at the folder and its first read: the -wal it expected gone and none it may make, a
// -shm gone or not yet made. Each passes; the reader looks again.
bool WriterCameOrWent(const std::string& path, int code) {
  if (code == SQLITE_READONLY_DIRECTORY || code == SQLITE_READONLY_CANTINIT || code == SQLITE_PROTOCOL) return true;
  std::error_code ec;
  return (code & 0xFF) == SQLITE_CANTOPEN && fs::exists(path, ec) && ::access(path.c_str(), R_OK) == 0;
}

int FlagsFor(OpenMode mode, bool query_only) {
  int flags = SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case OpenMode::kReadOnly: flags |= SQLITE_OPEN_READONLY; break;
    case OpenMode::kReader: flags |= query_only ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY; break;
    case OpenMode::kReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case OpenMode::kCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
  }
  return flags;
}

}  // namespace

void DbCloser::operator()(sqlite3* db) const {
  std::optional<FileGuard> guard;
  const char* file = sqlite3_db_filename(db, "main");
  if (file != nullptr && *file != '\0' && sqlite3_db_readonly(db, "main") == 0) {
    guard = FileGuard::TakeWithin(file, FileGuard::Kind::kExclusive, kCloserPatience);
    // A reader reads the file itself now: the log stays, for a later close to move in.
    if (!guard) sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  }
  sqlite3_close_v2(db);
}

Result<Db> Db::Connect(const std::string& path, const std::string& name, int flags, int& sqlite_code) {
  sqlite3* raw = nullptr;
  sqlite_code = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  Db db;
  db.db_.reset(raw);
  db.path_ = path;
  if (sqlite_code != SQLITE_OK) {
    if (raw == nullptr) {
      return Error{path, fmt::format("cannot open the database ({})", sqlite3_errstr(sqlite_code)), ""};
    }
    sqlite_code = sqlite3_extended_errcode(raw);
    return Diagnose(path, DbFailure{sqlite_code, sqlite3_system_errno(raw), sqlite3_errmsg(raw)}, "open");
  }
  db.use_ = FileUse(path);
  sqlite3_extended_result_codes(raw, 1);
  // Every file kscope opens may come from anyone (an export, a store sent by a colleague): its
  // schema's views and triggers run only innocuous functions, and no statement can corrupt the
  // file through the b-tree pages or shadow tables, nor load an extension.
  sqlite3_db_config(raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(raw, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  db.busy_ = std::make_unique<BusyState>(BusyState{path, DefaultLockWait(), {}, {}});
  sqlite3_busy_handler(raw, &Db::OnBusy, db.busy_.get());
  return db;
}

Result<Db> Db::OpenReadOnly(const std::string& path, int flags, int& sqlite_code) {
  // With no -wal beside it, nothing is uncommitted and the file alone is the database: it is
  // read as immutable (no locks, no -shm to make), with the guard that keeps checkpoints out.
  // A writer checkpointing holds the guard: its -wal is there, and is read through.
  std::optional<FileGuard> guard;
  std::string name = path;
  if (InReadOnlyFolder(path)) guard = FileGuard::TryTake(path, FileGuard::Kind::kShared);
  if (guard && InReadOnlyFolder(path)) {
    name = ImmutableUri(path);
    flags |= SQLITE_OPEN_URI;
  } else {
    guard.reset();  // a writer came meanwhile
  }
  auto db = Connect(path, name, flags, sqlite_code);
  if (!db.ok()) return db;
  // The first read opens the -wal and -shm (and from then on keeps them: a writer's close leaves
  // them while a reader has them open), or finds them gone.
  {
    auto first = db->Prepare("SELECT count(*) FROM sqlite_master");
    const Status read = first.ok() ? (first->Step(), first->status()) : Status(first.error());
    if (!read.ok()) {
      sqlite_code = sqlite3_extended_errcode(db->raw());
      // A damaged file is for the caller's own first read to name, in its words; only a writer
      // coming or going is this open's to try again.
      if (WriterCameOrWent(path, sqlite_code)) return read.error();
    }
  }
  db->reading_file_ = std::move(guard);
  return db;
}

Result<Db> Db::Open(const std::string& path, OpenMode mode) {
  // SQLite would open a FIFO and wait on it, or fail with words about permissions.
  if (auto what = NotAFile(path)) {
    return Error{path, fmt::format("is {}, not a database file", *what), "pass the path of a regular file"};
  }
  const bool query_only = mode == OpenMode::kReader && path != ":memory:" && MayWrite(path);
  const int flags = FlagsFor(mode, query_only);
  int code = SQLITE_OK;
  if ((flags & SQLITE_OPEN_READONLY) == 0) {
    auto db = Connect(path, path, flags, code);
    if (!db.ok()) return db;
    sqlite3_wal_hook(db->raw(), &GuardedAutoCheckpoint, nullptr);
    if (query_only) KSCOPE_RETURN_IF_ERROR(db->Exec("PRAGMA query_only=1"));
    return db;
  }
  const auto since = std::chrono::steady_clock::now();
  const auto limit = std::min<std::chrono::milliseconds>(DefaultLockWait().limit, kReaderRetry);
  for (int attempt = 0;; ++attempt) {
    auto db = OpenReadOnly(path, flags, code);
    if (db.ok() || !WriterCameOrWent(path, code) || std::chrono::steady_clock::now() - since >= limit) return db;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(50, 1 + attempt)));
  }
}

}  // namespace kscope::sql
