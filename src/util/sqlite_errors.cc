#include "util/sqlite_errors.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "util/sqlite.h"

namespace kscope::sql {

namespace fs = std::filesystem;

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

namespace {

std::string FolderOf(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// Whether this process may write `path` and create files beside it.
bool Writable(const std::string& path) {
  return ::access(path.c_str(), W_OK) == 0 && ::access(FolderOf(path).c_str(), W_OK) == 0;
}

Error ReadOnly(const std::string& path, const std::string& msg) {
  const std::string dir = FolderOf(path);
  if (::access(path.c_str(), W_OK) != 0) {
    return Error{path, fmt::format("the database file is read-only for you ({})", msg),
                 fmt::format("give yourself write permission (chmod u+w {}), or write to another database with "
                             "--db NEW.db",
                             path)};
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return Error{path,
                 fmt::format("its folder {} is read-only for you, and a write needs to create {}-wal and {}-shm "
                             "there ({})",
                             dir, path, path, msg),
                 fmt::format("give yourself write permission on the folder (chmod u+w {}), or write to another "
                             "database with --db NEW.db",
                             dir)};
  }
  return Error{path, fmt::format("cannot write the database ({})", msg),
               "check that its file system is mounted read-write, or write to another database with --db NEW.db"};
}

}  // namespace

Error DbError(sqlite3* db, std::string_view context) {
  const std::string msg = OneLine(sqlite3_errmsg(db));
  const char* file = sqlite3_db_filename(db, "main");
  const std::string path = file != nullptr ? file : "";
  if (path.empty()) return Error{"", fmt::format("database error ({}): {}", context, msg), ""};
  switch (sqlite3_extended_errcode(db) & 0xFF) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Error{path, fmt::format("the database file is damaged ({})", msg),
                   fmt::format("check it with: sqlite3 {} \"PRAGMA integrity_check\"; keep a copy, recover what "
                               "it still holds with: sqlite3 {} .recover | sqlite3 RECOVERED.db, or start a new "
                               "database with --db NEW.db",
                               path, path)};
    case SQLITE_READONLY: return ReadOnly(path, msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Error{
          path,
          fmt::format("another process held the database locked longer than kscope waits ({} s)",
                      std::chrono::duration_cast<std::chrono::seconds>(DefaultLockWait().limit).count()),
          "let the other kscope (or sqlite3) finish and try again, or wait longer: KSCOPE_LOCK_WAIT_S=SECONDS"};
    case SQLITE_FULL:
      return Error{path, fmt::format("the disk is full ({})", msg), "free space on its file system and try again"};
    case SQLITE_CANTOPEN:
      if (!Writable(path)) return ReadOnly(path, msg);  // the -wal or -shm file could not be made
      return Error{path, fmt::format("cannot open the database file ({})", msg),
                   "check that the file and its folder exist and that you may read and write them"};
    case SQLITE_IOERR:
      return Error{path, fmt::format("cannot read or write the database file ({})", msg),
                   "check the disk and the file system it is on"};
    default: return Error{path, fmt::format("database error ({}): {}", context, msg), ""};
  }
}

}  // namespace kscope::sql
