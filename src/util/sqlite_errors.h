// What a failed SQLite call means to a user, in one line naming the database file: a damaged
// file (how to check and recover it), a read-only file or folder (which path, which
// permission), a lock held too long, a full disk. Other errors keep SQLite's own words.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "util/status.h"

namespace kscope::sql {

// SQLite's message on one line (it can quote a malformed schema's SQL over many), cut short.
std::string OneLine(std::string_view msg);

// The error of `db`'s last failed call; `context` names the call ("step", "prepare", ...).
Error DbError(sqlite3* db, std::string_view context);

}  // namespace kscope::sql
