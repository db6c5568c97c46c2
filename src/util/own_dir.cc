#include "util/own_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace kscope {

namespace fs = std::filesystem;

Status MakeOwnDir(const fs::path& dir, std::string_view fix) {
  const std::string path = dir.string();
  std::error_code ec;
  if (dir.has_parent_path() && !fs::exists(dir.parent_path(), ec)) fs::create_directories(dir.parent_path(), ec);
  // mkdir applies the umask; EEXIST leaves whatever is there to be checked below.
  if (mkdir(path.c_str(), 0777) == 0) return Status::Ok();
  if (errno != EEXIST) {
    const int err = errno;
    return Error{
        path, std::string("cannot create the folder: ") + std::strerror(err),
        err == EACCES || err == EROFS ? "choose a folder you can write: " + std::string(fix) : std::string(fix)};
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    return Error{path, std::string("cannot check the folder: ") + std::strerror(errno), std::string(fix)};
  }
  if (S_ISLNK(st.st_mode)) {
    return Error{path,
                 "is a symbolic link; kscope writes its own folders only where no link leads it elsewhere (another "
                 "user may have planted it)",
                 "remove the link if it is yours, or " + std::string(fix)};
  }
  if (!S_ISDIR(st.st_mode)) return Error{path, "exists and is not a folder", std::string(fix)};
  if (st.st_uid != geteuid()) {
    return Error{path,
                 "is a folder of another user (uid " + std::to_string(st.st_uid) +
                     "), who could read or replace what kscope writes there",
                 std::string(fix)};
  }
  return Status::Ok();
}

}  // namespace kscope
