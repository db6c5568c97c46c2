// What a failed SQLite call means to a user, in one line naming the database file and the real
// cause: a damaged file (how to check and recover it), a read-only file, folder or mount (which
// path, which permission), a crash's unfinished write, a lock held too long, a full disk. Other
// errors keep SQLite's own words.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "util/status.h"

namespace kscope::sql {

// SQLite's message on one line (it can quote a malformed schema's SQL over many), cut short.
std::string OneLine(std::string_view msg);

// What a failed SQLite call reported: its extended result code, the errno of the system call
// under it (sqlite3_system_errno; 0 when there was none) and its message.
struct DbFailure {
  int code = 0;
  int sys_errno = 0;
  std::string message;
};

// The one line for `failure` on the database file `path`, by its real cause: a full disk
// (ENOSPC, EDQUOT), a file system mounted read-only (EROFS, or ST_RDONLY now), a hot journal
// or write-ahead log that a reader without write access cannot roll back, a store another
// kscope is opening or closing, a damaged file, a read-only file or folder, a lock held too
// long. `context` names the call ("step", "prepare", ...) for the errors kscope has no words for.
Error Diagnose(const std::string& path, const DbFailure& failure, std::string_view context);

// The error of `db`'s last failed call: Diagnose of its codes.
Error DbError(sqlite3* db, std::string_view context);

}  // namespace kscope::sql
