#include "report/query_table.h"

#include <fmt/format.h>

#include <memory>
#include <string>

namespace kscope::report {

namespace {

constexpr std::string_view kFix = "see the views in docs/query.md";

Error QueryError(const sql::Db& db, std::string_view what) {
  return Error{db.path(), fmt::format("query: {}", what), std::string(kFix)};
}

bool OnlySpaceOrSemicolons(std::string_view rest) {
  return rest.find_first_not_of(" \t\r\n;") == std::string_view::npos;
}

Cell ColumnCell(sqlite3_stmt* s, int col) {
  switch (sqlite3_column_type(s, col)) {
    case SQLITE_INTEGER: return Cell{static_cast<int64_t>(sqlite3_column_int64(s, col))};
    case SQLITE_FLOAT: {
      const double v = sqlite3_column_double(s, col);
      return Cell{Decimal{v, reinterpret_cast<const char*>(sqlite3_column_text(s, col))}};
    }
    case SQLITE_TEXT: return Cell{std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, col)))};
    case SQLITE_BLOB: return Cell{fmt::format("[blob, {} bytes]", sqlite3_column_bytes(s, col))};
    default: return Cell{};
  }
}

}  // namespace

Result<Table> QueryTable(sql::Db& db, std::string_view sql) {
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db.raw(), sql.data(), static_cast<int>(sql.size()), &raw, &tail) != SQLITE_OK) {
    return QueryError(db, db.ErrorMessage());
  }
  std::unique_ptr<sqlite3_stmt, sql::StmtFinalizer> stmt(raw);
  if (stmt == nullptr) return QueryError(db, "no SQL statement given");
  if (!OnlySpaceOrSemicolons(std::string_view(tail, sql.data() + sql.size() - tail))) {
    return QueryError(db, "more than one SQL statement; pass one at a time");
  }
  if (sqlite3_stmt_readonly(raw) == 0) {
    return Error{db.path(), "query: kscope query only reads, and this statement would change the database",
                 "ask with SELECT (the views are in docs/query.md)"};
  }
  Table t;
  t.title = "query";
  const int columns = sqlite3_column_count(raw);
  for (int c = 0; c < columns; ++c) t.columns.emplace_back(sqlite3_column_name(raw, c));
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
    auto& row = t.rows.emplace_back();
    for (int c = 0; c < columns; ++c) row.push_back(ColumnCell(raw, c));
  }
  if (rc != SQLITE_DONE) return QueryError(db, db.ErrorMessage());
  return t;
}

}  // namespace kscope::report
