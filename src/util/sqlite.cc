#include "util/sqlite.h"

#include <fmt/format.h>

namespace kscope::sql {

namespace {
// Errors are printed as one line: SQLite's messages lose their line breaks and runs of
// spaces, and are cut short when they quote more SQL than a reader needs.
std::string OneLine(std::string_view msg) {
  constexpr size_t kMaxChars = 200;
  std::string out;
  bool gap = false;
  for (char c : msg) {
    if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f') {
      gap = !out.empty();
      continue;
    }
    if (gap) out += ' ';
    gap = false;
    out += c;
  }
  if (out.size() > kMaxChars) out = out.substr(0, kMaxChars - 3) + "...";
  return out;
}

Error SqlError(sqlite3* db, std::string_view context) {
  return Error{"", fmt::format("database error ({}): {}", context, OneLine(sqlite3_errmsg(db))), ""};
}
}  // namespace

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
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE && status_.ok()) status_ = SqlError(db_, "step");
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

Result<Db> Db::Open(const std::string& path, OpenMode mode) {
  int flags = SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case OpenMode::kReadOnly: flags |= SQLITE_OPEN_READONLY; break;
    case OpenMode::kReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case OpenMode::kCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
  }
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db;
  db.db_.reset(raw);
  db.path_ = path;
  if (rc != SQLITE_OK) {
    std::string msg = OneLine(raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
    return Error{path, "cannot open as an SQLite database (" + msg + ")", "check the path and its permissions"};
  }
  sqlite3_extended_result_codes(raw, 1);
  return db;
}

Result<Stmt> Db::Prepare(std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db_.get(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
      SQLITE_OK) {
    return SqlError(db_.get(), "prepare");
  }
  return Stmt(s, db_.get());
}

Status Db::Exec(std::string_view sql) {
  char* err = nullptr;
  const std::string owned(sql);
  if (sqlite3_exec(db_.get(), owned.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = OneLine(err != nullptr ? err : sqlite3_errmsg(db_.get()));
    sqlite3_free(err);
    return Error{"", "database error: " + msg, ""};
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
  if (auto st = db.Exec("BEGIN IMMEDIATE"); !st.ok()) return st.error();
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  if (db_ == nullptr) return Error{"", "transaction already finished", ""};
  Status st = db_->Exec("COMMIT");
  if (st.ok()) db_ = nullptr;
  return st;
}

}  // namespace kscope::sql
