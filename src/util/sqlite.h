// Thin RAII wrappers over the SQLite C API: connections, prepared statements with bound
// parameters (never string-built SQL for values), and transactions that roll back unless
// committed.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/sqlite_file_guard.h"
#include "util/status.h"

namespace kscope::sql {

// Closes a connection; one that may write moves its log into the file first (SQLite's close)
// only while no reader reads the file itself (sqlite_file_guard.h), and leaves it otherwise.
struct DbCloser {
  void operator()(sqlite3* db) const;
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

// kReadOnly opens read-only. kReader is how kscope's reading verbs open a store: read-write with
// PRAGMA query_only when this process may write the file and its folder (so that it rolls back
// what a crashed writer left, and the last connection's close removes the -wal and -shm files),
// read-only otherwise; it writes nothing either way.
enum class OpenMode { kReadOnly, kReadWrite, kCreate, kReader };

// What `path` is when it exists and is not a regular file ("a FIFO (named pipe)", "a folder",
// ...), for a refusal before SQLite opens it; nullopt for a regular file or no file.
std::optional<std::string> NotAFile(const std::string& path);

class Db;

class Stmt {
 public:
  Stmt() = default;
  Stmt(sqlite3_stmt* s, sqlite3* db) : stmt_(s), db_(db) {}

  Stmt& Bind(int index, int64_t v);
  Stmt& Bind(int index, int v) { return Bind(index, static_cast<int64_t>(v)); }
  Stmt& Bind(int index, double v);
  Stmt& Bind(int index, std::string_view v);
  Stmt& Bind(int index, const char* v) { return Bind(index, std::string_view(v)); }
  Stmt& BindBlob(int index, std::span<const uint8_t> v);
  Stmt& BindNull(int index);
  template <typename T>
  Stmt& Bind(int index, const std::optional<T>& v) {
    return v ? Bind(index, *v) : BindNull(index);
  }

  // Steps once. Returns true while a row is available, false when done.
  // Errors are reported through Status(); callers check it after the loop.
  bool Step();
  // Runs to completion (for statements that return no rows) and resets.
  Status Run();
  void Reset();

  [[nodiscard]] bool IsNull(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }
  [[nodiscard]] int64_t Int(int col) const { return sqlite3_column_int64(stmt_.get(), col); }
  [[nodiscard]] double Double(int col) const { return sqlite3_column_double(stmt_.get(), col); }
  [[nodiscard]] std::string Text(int col) const;
  [[nodiscard]] std::span<const uint8_t> Blob(int col) const;
  [[nodiscard]] std::optional<int64_t> OptInt(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
  }
  [[nodiscard]] std::optional<std::string> OptText(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<std::string>(Text(col));
  }

  // The first error seen while stepping, if any.
  [[nodiscard]] Status status() const { return status_; }
  [[nodiscard]] sqlite3_stmt* raw() const { return stmt_.get(); }

 private:
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> stmt_;
  sqlite3* db_ = nullptr;
  Status status_;
};

// How long a connection waits for another process's write lock before it gives up, and
// how often it says so on stderr while it waits.
struct LockWait {
  std::chrono::milliseconds limit{std::chrono::minutes(10)};
  std::chrono::milliseconds first_note{std::chrono::seconds(1)};
  std::chrono::milliseconds note_every{std::chrono::seconds(10)};
};
// The wait from $KSCOPE_LOCK_WAIT_S (seconds) when set, else 10 minutes.
LockWait DefaultLockWait();

class Db {
 public:
  // Every connection waits for a busy database (LockWait) instead of failing at once. A reader
  // who may not write the folder never fails for a writer coming or going meanwhile: it reads
  // through the writer's -wal and -shm while they exist, or the file itself (immutable, holding
  // a FileGuard) while they do not, and chooses again when they come or go before its first read.
  static Result<Db> Open(const std::string& path, OpenMode mode);

  Result<Stmt> Prepare(std::string_view sql);
  Status Exec(std::string_view sql);  // for DDL and PRAGMAs; no parameters
  [[nodiscard]] bool TableExists(std::string_view name);
  [[nodiscard]] int64_t LastInsertRowId() const { return sqlite3_last_insert_rowid(db_.get()); }
  // SQLite's last error, on one line (it can quote a malformed schema's SQL over many).
  [[nodiscard]] std::string ErrorMessage() const;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] sqlite3* raw() const { return db_.get(); }

 private:
  struct BusyState {
    std::string path;
    LockWait wait;
    std::chrono::steady_clock::time_point since;
    std::optional<std::chrono::milliseconds> last_note;
  };
  static int OnBusy(void* state, int count);
  // sqlite3_open_v2 of `name` (the path, or a URI for it), with the busy handler; its failure
  // diagnosed, and SQLite's code in `sqlite_code`.
  static Result<Db> Connect(const std::string& path, const std::string& name, int flags, int& sqlite_code);
  // One try of a connection that may not write (SQLITE_OPEN_READONLY), its first read done.
  static Result<Db> OpenReadOnly(const std::string& path, int flags, int& sqlite_code);

  // Declared before db_: released after the connection closes.
  FileUse use_;
  std::optional<FileGuard> reading_file_;  // held while this reads the file itself (immutable)
  std::unique_ptr<sqlite3, DbCloser> db_;
  std::string path_;
  std::unique_ptr<BusyState> busy_;  // stable address for SQLite's busy handler
};

// BEGIN IMMEDIATE on construction (waiting for another writer as LockWait says); ROLLBACK on
// destruction unless Commit() succeeded.
class Transaction {
 public:
  static Result<Transaction> Begin(Db& db);
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Status Commit();

 private:
  explicit Transaction(Db* db) : db_(db) {}
  Db* db_;
};

}  // namespace kscope::sql
