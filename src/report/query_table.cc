#include "report/query_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

namespace kscope::report {

namespace {

constexpr std::string_view kFix = "see the views in docs/query.md";
constexpr int kMaxQueryValue = 64 << 20;  // bytes of one value of a query's result

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

// The SQL functions a read-only analysis needs: SQLite's core scalar, aggregate, window,
// date, math and JSON functions. Everything else is denied at prepare, above all the
// functions that take or give pointers (fts3_tokenizer gives a code address and registers any
// address as a tokenizer), load code (load_extension), read or write files, sleep, or make
// blobs of any size (randomblob, zeroblob).
// clang-format off
constexpr std::string_view kAllowedFunctions[] = {
    // core scalar
    "abs", "char", "coalesce", "format", "glob", "hex", "ifnull", "iif", "instr", "length", "like", "likelihood",
    "likely", "lower", "ltrim", "max", "min", "nullif", "octet_length", "printf", "quote", "random", "replace",
    "round", "rtrim", "sign", "soundex", "substr", "substring", "trim", "typeof", "unhex", "unicode", "unlikely",
    "upper", "concat", "concat_ws",
    // aggregate
    "avg", "count", "group_concat", "string_agg", "sum", "total", "median", "percentile", "percentile_cont",
    "percentile_disc",
    // window
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
    "last_value", "nth_value",
    // date and time
    "date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff", "current_date", "current_time",
    "current_timestamp",
    // math
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh", "degrees", "exp",
    "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians", "sin", "sinh", "sqrt", "tan",
    "tanh", "trunc",
    // JSON (pure: each returns a value and changes nothing)
    "json", "json_array", "json_array_length", "json_extract", "json_insert", "json_object", "json_patch",
    "json_quote", "json_remove", "json_replace", "json_set", "json_type", "json_valid", "json_group_array",
    "json_group_object", "->", "->>"};
// clang-format on

// A reader's connection may be read-write with PRAGMA query_only: a statement that attaches a
// file (which would create it) or sets a pragma (query_only=0 among them) is denied at prepare;
// so is every function outside kAllowedFunctions.
int OnlyReads(void* state, int action, const char* arg1, const char* arg2, const char* /*db*/,
              const char* /*trigger*/) {
  if (action == SQLITE_FUNCTION) {
    if (arg2 != nullptr && QueryFunctionAllowed(arg2)) return SQLITE_OK;
    if (state != nullptr && arg2 != nullptr) *static_cast<std::string*>(state) = arg2;
    return SQLITE_DENY;
  }
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
  std::string denied_function;
  sqlite3_set_authorizer(db.raw(), OnlyReads, &denied_function);
  // One value of the result (a string made by group_concat, a blob) is held a few times on its
  // way out: bounded, so that memory stays a few hundred MB whatever the query.
  const int length_limit = sqlite3_limit(db.raw(), SQLITE_LIMIT_LENGTH, kMaxQueryValue);
  const int prepared = sqlite3_prepare_v2(db.raw(), sql.data(), static_cast<int>(sql.size()), &raw, &tail);
  std::unique_ptr<sqlite3_stmt, sql::StmtFinalizer> stmt(raw);
  struct AuthorizerOff {
    sqlite3* db;
    int length_limit;
    ~AuthorizerOff() {
      sqlite3_set_authorizer(db, nullptr, nullptr);
      sqlite3_limit(db, SQLITE_LIMIT_LENGTH, length_limit);
    }
  } authorizer_off{db.raw(), length_limit};
  if (prepared != SQLITE_OK) {
    if (!denied_function.empty()) {  // SQLite says "not authorized to use function"
      return Error{db.path(), fmt::format("query: kscope query does not run the SQL function {}()", denied_function),
                   "use SQLite's core, date, math, JSON, aggregate and window functions (docs/query.md)"};
    }
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
  if ((rc & 0xFF) == SQLITE_TOOBIG) {
    return Error{db.path(),
                 fmt::format("query: a value of the result is larger than {} MiB, kscope query's bound for one value",
                             kMaxQueryValue >> 20),
                 "select less per row (substr(), a narrower group_concat)"};
  }
  if (rc != SQLITE_DONE) return QueryError(db, db.ErrorMessage());
  return Status::Ok();
}

}  // namespace

bool QueryFunctionAllowed(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::find(std::begin(kAllowedFunctions), std::end(kAllowedFunctions), lower) != std::end(kAllowedFunctions);
}

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
