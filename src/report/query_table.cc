#include "report/query_table.h"

#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>

namespace kscope::report {

namespace {

constexpr std::string_view kFix = "see the views in docs/query.md";

Error QueryError(const sql::Db& db, std::string_view what) {
  return Error{db.path(), fmt::format("query: {}", what), std::string(kFix)};
}

Error WouldWrite(const sql::Db& db) {
  return Error{db.path(), "query: kscope query only reads, and this statement would change the database",
               "ask with SELECT (the views are in docs/query.md)"};
}

bool OnlySpaceOrSemicolons(std::string_view rest) {
  return rest.find_first_not_of(" \t\r\n;") == std::string_view::npos;
}

// A reader's connection may be read-write with PRAGMA query_only: a statement that attaches a
// file (which would create it) or sets a pragma (query_only=0 among them) is denied at prepare.
int OnlyReads(void* /*state*/, int action, const char* arg1, const char* arg2, const char* /*db*/,
              const char* /*trigger*/) {
  if (action == SQLITE_ATTACH || action == SQLITE_DETACH) return SQLITE_DENY;
  if (action == SQLITE_PRAGMA && arg2 != nullptr) {
    // PRAGMA table_info(v_runs) and its kin name a table; every other argument sets something.
    const std::string_view name = arg1 != nullptr ? arg1 : "";
    const bool names_a_table = name.starts_with("table_") || name.starts_with("index_") || name == "foreign_key_list" ||
                               name == "foreign_key_check";
    if (!names_a_table) return SQLITE_DENY;
  }
  return SQLITE_OK;
}

Cell ColumnCell(sqlite3_stmt* s, int col) {
  switch (sqlite3_column_type(s, col)) {
    case SQLITE_INTEGER: return Cell{static_cast<int64_t>(sqlite3_column_int64(s, col))};
    case SQLITE_FLOAT: {
      const double v = sqlite3_column_double(s, col);
      return Cell{Decimal{v, reinterpret_cast<const char*>(sqlite3_column_text(s, col))}};
    }
    case SQLITE_TEXT: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, col));
      return Cell{std::string(text, static_cast<size_t>(sqlite3_column_bytes(s, col)))};
    }
    case SQLITE_BLOB: return Cell{fmt::format("[blob, {} bytes]", sqlite3_column_bytes(s, col))};
    default: return Cell{};
  }
}

// Prepares `sql` as one statement that only reads, then steps it: `on_columns` with the column
// names, `on_row` with each row.
Status RunQuery(sql::Db& db, std::string_view sql, const std::function<void(std::vector<std::string>)>& on_columns,
                const std::function<void(std::vector<Cell>)>& on_row) {
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  sqlite3_set_authorizer(db.raw(), OnlyReads, nullptr);
  const int prepared = sqlite3_prepare_v2(db.raw(), sql.data(), static_cast<int>(sql.size()), &raw, &tail);
  std::unique_ptr<sqlite3_stmt, sql::StmtFinalizer> stmt(raw);
  struct AuthorizerOff {
    sqlite3* db;
    ~AuthorizerOff() { sqlite3_set_authorizer(db, nullptr, nullptr); }
  } authorizer_off{db.raw()};
  if (prepared != SQLITE_OK) {
    if (sqlite3_errcode(db.raw()) == SQLITE_AUTH) return WouldWrite(db);
    return QueryError(db, db.ErrorMessage());
  }
  if (stmt == nullptr) return QueryError(db, "no SQL statement given");
  if (!OnlySpaceOrSemicolons(std::string_view(tail, sql.data() + sql.size() - tail))) {
    return QueryError(db, "more than one SQL statement; pass one at a time");
  }
  if (sqlite3_stmt_readonly(raw) == 0) return WouldWrite(db);
  const int columns = sqlite3_column_count(raw);
  std::vector<std::string> names;
  for (int c = 0; c < columns; ++c) names.emplace_back(sqlite3_column_name(raw, c));
  on_columns(std::move(names));
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
    std::vector<Cell> row;
    row.reserve(static_cast<size_t>(columns));
    for (int c = 0; c < columns; ++c) row.push_back(ColumnCell(raw, c));
    on_row(std::move(row));
  }
  if (rc != SQLITE_DONE) return QueryError(db, db.ErrorMessage());
  return Status::Ok();
}

}  // namespace

Result<Table> QueryTable(sql::Db& db, std::string_view sql) {
  Table t;
  t.title = "query";
  auto st = RunQuery(
      db, sql, [&](std::vector<std::string> columns) { t.columns = std::move(columns); },
      [&](std::vector<Cell> row) { t.rows.push_back(std::move(row)); });
  if (!st.ok()) return st.error();
  return t;
}

Status WriteQuery(sql::Db& db, std::string_view sql, Format format, std::ostream& out) {
  std::unique_ptr<RowWriter> writer;
  auto st = RunQuery(
      db, sql,
      [&](std::vector<std::string> columns) {
        writer = std::make_unique<RowWriter>("query", std::move(columns), format, out);
      },
      [&](std::vector<Cell> row) { writer->Row(std::move(row)); });
  if (writer && st.ok()) writer->Finish();  // a cut JSON document shows the error too
  return st;
}

}  // namespace kscope::report
