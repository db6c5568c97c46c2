// kscope query: one read-only SQL statement over the store (its views are documented in
// docs/query.md), its result as a report table or streamed row by row.
#pragma once

#include <iosfwd>
#include <string_view>

#include "report/table.h"
#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::report {

// Whether kscope query runs the SQL function `name` (any case): SQLite's core scalar,
// aggregate, window, date, math and JSON functions; never one that takes or gives pointers,
// loads code, touches files, sleeps or makes blobs of any size (fts3_tokenizer,
// load_extension, randomblob, zeroblob...).
bool QueryFunctionAllowed(std::string_view name);

// Runs `sql`, one statement that only reads, and returns its columns and rows: integers,
// reals (with SQLite's text of them), text, NULL, and blobs as '[blob, N bytes]'. A statement
// that would write, attach a file, set a pragma or call a function QueryFunctionAllowed
// denies, an empty one, or more than one is an error
// before anything runs. Open `db` as a reader (query_only, or read-only) as well: that, not
// this check, is what keeps the file unchanged.
Result<Table> QueryTable(sql::Db& db, std::string_view sql);

// The same, each row written to `out` as it is stepped (report::RowWriter): memory does not
// grow with the result. An error after some rows were written is returned; what was written
// stays written.
Status WriteQuery(sql::Db& db, std::string_view sql, Format format, std::ostream& out);

}  // namespace kscope::report
