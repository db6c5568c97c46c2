#include "util/sqlite_errors.h"

#include <fmt/format.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
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

// Whether the file system holding `path` (or its folder) is mounted read-only now.
bool OnReadOnlyMount(const std::string& path) {
  struct statvfs vfs {};
  if (::statvfs(path.c_str(), &vfs) != 0 && ::statvfs(FolderOf(path).c_str(), &vfs) != 0) return false;
  return (vfs.f_flag & ST_RDONLY) != 0;
}

Error ReadOnlyMount(const std::string& path, const std::string& msg) {
  return Error{path, fmt::format("its file system is mounted read-only ({})", msg),
               "write to a store on a read-write file system (--db NEW.db), or remount it read-write; the reading "
               "verbs (runs, stats, report, query) read it where it is"};
}

Error DiskFull(const std::string& path, const std::string& msg) {
  return Error{path, fmt::format("the disk is full ({})", msg),
               fmt::format("free space on the file system of {} and try again; the store is as it was before this "
                           "command",
                           FolderOf(path))};
}

// A writer stopped between its first write and its commit (a crash, kill -9, a power loss)
// left a journal that the next connection with write access rolls back; one without cannot.
Error UnfinishedWrite(const std::string& path, std::string_view journal, const std::string& msg) {
  return Error{path,
               fmt::format("a kscope (or sqlite3) that stopped while writing it left {}{} to be rolled back, and you "
                           "may not write the store or its folder to do it ({})",
                           path, journal, msg),
               fmt::format("run any kscope command on it once as a user who may write both (kscope --db {} runs): "
                           "it undoes the unfinished write, keeping every committed run",
                           path)};
}

Error ReadOnly(const std::string& path, const std::string& msg) {
  const std::string dir = FolderOf(path);
  if (OnReadOnlyMount(path)) return ReadOnlyMount(path, msg);
  if (::access(path.c_str(), W_OK) != 0) {
    if (errno == EROFS) return ReadOnlyMount(path, msg);
    return Error{path, fmt::format("the database file is read-only for you ({})", msg),
                 fmt::format("give yourself write permission (chmod u+w {}), or write to another database with "
                             "--db NEW.db",
                             path)};
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    if (errno == EROFS) return ReadOnlyMount(path, msg);
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

Error Diagnose(const std::string& path, const DbFailure& failure, std::string_view context) {
  const std::string msg = OneLine(failure.message);
  if (path.empty()) return Error{"", fmt::format("database error ({}): {}", context, msg), ""};
  const int primary = failure.code & 0xFF;
  if (primary == SQLITE_FULL || failure.sys_errno == ENOSPC || failure.sys_errno == EDQUOT) {
    return DiskFull(path, msg);
  }
  if (failure.sys_errno == EROFS) return ReadOnlyMount(path, msg);
  switch (failure.code) {
    case SQLITE_READONLY_ROLLBACK: return UnfinishedWrite(path, "-journal", msg);
    case SQLITE_READONLY_RECOVERY: return UnfinishedWrite(path, "-wal", msg);
    case SQLITE_READONLY_CANTINIT:
    case SQLITE_BUSY_RECOVERY:
      return Error{path, fmt::format("another kscope was opening or closing the store just then ({})", msg),
                   "try again"};
    default: break;
  }
  switch (primary) {
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
    case SQLITE_CANTOPEN:
      if (std::error_code ec; (failure.sys_errno == ENOENT || failure.sys_errno == EACCES) && !fs::exists(path, ec)) {
        // Nothing there to open: the folder is missing, or one the user may not write in.
        const fs::path folder = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
        if (!fs::is_directory(folder, ec)) {
          return Error{path, fmt::format("no such folder: {}", folder.string()), "check the path"};
        }
        if (::access(folder.c_str(), W_OK | X_OK) != 0) {
          return Error{path,
                       fmt::format("cannot create the database: you may not write in its folder {}", folder.string()),
                       "pass --db with a path in a folder you can write"};
        }
        return Error{path, fmt::format("no such file ({})", msg), "check the path"};
      }
      if (::access(path.c_str(), R_OK) != 0 && errno == EACCES) {
        return Error{path, fmt::format("you may not read the database file ({})", msg),
                     "ask its owner for read permission, or pass --db with another database"};
      }
      if (failure.sys_errno == EACCES || failure.sys_errno == EPERM || !Writable(path)) {
        return ReadOnly(path, msg);  // the -wal or -shm file could not be made
      }
      return Error{path, fmt::format("cannot open the database file ({})", msg),
                   "check that the file and its folder exist and that you may read and write them"};
    case SQLITE_IOERR:
      return Error{path, fmt::format("cannot read or write the database file ({})", msg),
                   "check the disk and the file system it is on"};
    default: return Error{path, fmt::format("database error ({}): {}", context, msg), ""};
  }
}

Error DbError(sqlite3* db, std::string_view context) {
  const char* file = sqlite3_db_filename(db, "main");
  return Diagnose(file != nullptr ? file : "",
                  DbFailure{sqlite3_extended_errcode(db), sqlite3_system_errno(db), sqlite3_errmsg(db)}, context);
}

}  // namespace kscope::sql
