#include "util/sqlite.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "util/sqlite_errors.h"

namespace kscope::sql {

namespace fs = std::filesystem;

namespace {

// Connections inside a Transaction. After some errors (a full disk, an I/O error, no memory)
// SQLite rolls the whole transaction back by itself and the connection returns to autocommit:
// a write after that would be committed on its own, outside the transaction that was meant to
// hold it or nothing. Writes on such a connection are refused instead.
// The error that made SQLite roll back is kept and given again for each refused write, so
// whichever thread of an import reports first says what went wrong.
std::mutex open_tx_mutex;
std::unordered_set<sqlite3*> open_tx;
std::unordered_map<sqlite3*, Error> lost_tx;  // the error after which SQLite rolled back

std::optional<Error> TransactionLost(sqlite3* db, sqlite3_stmt* stmt) {
  if (sqlite3_get_autocommit(db) == 0 || sqlite3_stmt_readonly(stmt) != 0) return std::nullopt;
  const std::lock_guard lock(open_tx_mutex);
  if (!open_tx.contains(db)) return std::nullopt;
  if (auto it = lost_tx.find(db); it != lost_tx.end()) return it->second;
  return Error{sqlite3_db_filename(db, "main"),
               "SQLite rolled the transaction back after an error; nothing of it is kept",
               "try again; if it happens again, check the disk and the database file"};
}

// After a failed step: when SQLite has rolled a kscope transaction back, remember why.
void NoteIfRolledBack(sqlite3* db, const Status& failure) {
  if (failure.ok() || sqlite3_get_autocommit(db) == 0) return;
  const std::lock_guard lock(open_tx_mutex);
  if (open_tx.contains(db) && !lost_tx.contains(db)) lost_tx.emplace(db, failure.error());
}

// Codes SQLite gives a connection that may not write (a read-only -shm) only as a read begins,
// before any row, while a writer makes, resets or removes the -wal and -shm: the read is tried
// again, for about 5 s, before the code is taken for an answer (a crash's log, say).
constexpr int kReaderTries = 200;

bool ReaderTriesAgain(sqlite3* db, int code, int tries) {
  if (tries >= kReaderTries || sqlite3_db_readonly(db, "main") != 1) return false;
  const bool again = code == SQLITE_READONLY_RECOVERY || code == SQLITE_READONLY_CANTINIT || code == SQLITE_PROTOCOL ||
                     code == SQLITE_BUSY_RECOVERY;
  if (again) std::this_thread::sleep_for(std::chrono::milliseconds(std::min(25, 1 + tries)));
  return again;
}

void CloseTransaction(sqlite3* db) {
  const std::lock_guard lock(open_tx_mutex);
  open_tx.erase(db);
  lost_tx.erase(db);
}
}  // namespace

std::optional<std::string> NotAFile(const std::string& path) {
  struct stat st {};
  if (path.empty() || path == ":memory:" || ::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  if (S_ISFIFO(st.st_mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISDIR(st.st_mode)) return "a folder";
  return "not a regular file";
}

LockWait DefaultLockWait() {
  LockWait wait;
  if (const char* env = std::getenv("KSCOPE_LOCK_WAIT_S"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const double secs = std::strtod(env, &end);
    if (end != env && *end == '\0' && secs >= 0)
      wait.limit = std::chrono::milliseconds(static_cast<int64_t>(secs * 1000));
  }
  return wait;
}

// SQLite calls this while another connection holds the lock it needs: sleep a little and try
// again (returning 1) until the wait's limit, noting the wait on stderr now and then.
int Db::OnBusy(void* state, int count) {
  using namespace std::chrono;
  auto& s = *static_cast<BusyState*>(state);
  const auto now = steady_clock::now();
  if (count == 0) {
    s.since = now;
    s.last_note.reset();
  }
  const auto waited = duration_cast<milliseconds>(now - s.since);
  if (waited >= s.wait.limit) return 0;
  if (waited >= s.wait.first_note && (!s.last_note || waited - *s.last_note >= s.wait.note_every)) {
    std::cerr << fmt::format("waiting for another kscope writing {} ({} s so far, at most {} s)\n", s.path,
                             duration_cast<seconds>(waited).count(), duration_cast<seconds>(s.wait.limit).count());
    s.last_note = waited;
  }
  // Short sleeps first (a writer often finishes within milliseconds), then up to 50 ms.
  std::this_thread::sleep_for(milliseconds(std::min(50, 1 + count)));
  return 1;
}

std::string Db::ErrorMessage() const { return OneLine(sqlite3_errmsg(db_.get())); }

Stmt& Stmt::Bind(int index, int64_t v) {
  sqlite3_bind_int64(stmt_.get(), index, v);
  return *this;
}
Stmt& Stmt::Bind(int index, double v) {
  sqlite3_bind_double(stmt_.get(), index, v);
  return *this;
}
Stmt& Stmt::Bind(int index, std::string_view v) {
  sqlite3_bind_text(stmt_.get(), index, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::BindBlob(int index, std::span<const uint8_t> v) {
  sqlite3_bind_blob(stmt_.get(), index, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::BindNull(int index) {
  sqlite3_bind_null(stmt_.get(), index);
  return *this;
}

bool Stmt::Step() {
  if (auto lost = TransactionLost(db_, stmt_.get())) {
    if (status_.ok()) status_ = *lost;
    return false;
  }
  int rc = sqlite3_step(stmt_.get());
  for (int tries = 0; rc != SQLITE_ROW && rc != SQLITE_DONE && ReaderTriesAgain(db_, rc, tries); ++tries) {
    sqlite3_reset(stmt_.get());  // keeps the bindings
    rc = sqlite3_step(stmt_.get());
  }
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE && status_.ok()) {
    status_ = DbError(db_, "step");
    NoteIfRolledBack(db_, status_);
  }
  return false;
}

Status Stmt::Run() {
  while (Step()) {
  }
  Status st = status_;
  Reset();
  return st;
}

void Stmt::Reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
  status_ = Status::Ok();
}

std::string Stmt::Text(int col) const {
  const auto* p = sqlite3_column_text(stmt_.get(), col);
  if (p == nullptr) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col))};
}

std::span<const uint8_t> Stmt::Blob(int col) const {
  const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_.get(), col));
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col))};
}

Result<Stmt> Db::Prepare(std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  auto prepare = [&] {
    return sqlite3_prepare_v3(db_.get(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s,
                              nullptr);
  };
  int rc = prepare();
  for (int tries = 0; rc != SQLITE_OK && ReaderTriesAgain(db_.get(), sqlite3_extended_errcode(db_.get()), tries);
       ++tries) {
    rc = prepare();
  }
  if (rc != SQLITE_OK) return DbError(db_.get(), "prepare");
  return Stmt(s, db_.get());
}

Status Db::Exec(std::string_view sql) {
  char* err = nullptr;
  const std::string owned(sql);
  if (sqlite3_exec(db_.get(), owned.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    return DbError(db_.get(), "exec");
  }
  return Status::Ok();
}

bool Db::TableExists(std::string_view name) {
  auto st = Prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1");
  if (!st.ok()) return false;
  st->Bind(1, name);
  return st->Step();
}

Result<Transaction> Transaction::Begin(Db& db) {
  if (auto st = db.Exec("BEGIN IMMEDIATE"); !st.ok()) {
    if ((sqlite3_errcode(db.raw()) & 0xFF) != SQLITE_BUSY) return st.error();
    const auto limit = std::chrono::duration_cast<std::chrono::seconds>(DefaultLockWait().limit).count();
    return Error{db.path(), fmt::format("another process held the write lock longer than kscope waits ({} s)", limit),
                 "let the other kscope finish and try again, or wait longer: KSCOPE_LOCK_WAIT_S=SECONDS"};
  }
  {
    const std::lock_guard lock(open_tx_mutex);
    open_tx.insert(db.raw());
  }
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ == nullptr) return;
  CloseTransaction(db_->raw());
  (void)db_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  if (db_ == nullptr) return Error{"", "transaction already finished", ""};
  CloseTransaction(db_->raw());
  Status st = db_->Exec("COMMIT");
  if (st.ok()) {
    db_ = nullptr;
  } else {
    const std::lock_guard lock(open_tx_mutex);
    open_tx.insert(db_->raw());  // still open: the destructor rolls it back
  }
  return st;
}

}  // namespace kscope::sql
