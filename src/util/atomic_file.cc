#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "util/stale_scratch.h"

namespace kscope {

namespace fs = std::filesystem;

namespace {
// The folder `path` is in, for the temporary file and the folder's fsync.
fs::path FolderOf(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }

Error Failed(const fs::path& path, const std::string& what, int err) {
  const bool space = err == ENOSPC || err == EFBIG || err == EDQUOT;
  return Error{path.string(), what + ": " + std::strerror(err),
               space ? "free disk space (or raise the file size limit); the previous file, if any, is kept"
                     : "check that the folder exists and is writable; the previous file, if any, is kept"};
}
}  // namespace

Result<AtomicFile> AtomicFile::Create(const fs::path& path) {
  const std::string prefix = "." + path.filename().string() + ".kscope-";
  (void)RemoveStaleScratch(FolderOf(path), prefix);  // what a killed kscope left for this file
  std::string temp = (FolderOf(path) / (prefix + ScratchTag() + "XXXXXX")).string();
  const int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return Failed(path, "cannot create a file in its folder", errno);
  // mkostemp makes it 0600; a finished file reads as any other the user makes.
  const mode_t mask = umask(0);
  umask(mask);
  (void)fchmod(fd, 0666 & ~mask);
  return AtomicFile(path, temp, fd);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_(std::move(other.temp_)),
      fd_(std::exchange(other.fd_, -1)),
      committed_(std::exchange(other.committed_, true)) {}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_ && !temp_.empty()) (void)unlink(temp_.c_str());
}

Status AtomicFile::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Failed(path_, "cannot write", errno);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status AtomicFile::Commit() {
  if (fsync(fd_) != 0) return Failed(path_, "cannot write", errno);
  const int closed = close(std::exchange(fd_, -1));
  if (closed != 0) return Failed(path_, "cannot write", errno);
  if (rename(temp_.c_str(), path_.c_str()) != 0) return Failed(path_, "cannot put the file in place", errno);
  committed_ = true;
  // The rename itself reaches the disk when the folder does.
  if (const int dir = open(FolderOf(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    (void)fsync(dir);
    close(dir);
  }
  return Status::Ok();
}

Status WriteFileAtomically(const fs::path& path, std::string_view bytes) {
  Result<AtomicFile> file = AtomicFile::Create(path);
  if (!file.ok()) return file.error();
  KSCOPE_RETURN_IF_ERROR(file->Write(bytes));
  return file->Commit();
}

}  // namespace kscope
