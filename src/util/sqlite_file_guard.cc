#include "util/sqlite_file_guard.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <thread>

namespace kscope::sql {

namespace {

using FileId = std::pair<uint64_t, uint64_t>;

// A byte in the page SQLite keeps for its own locks (at 1 GiB) that SQLite never locks: its
// locks end at 1 GiB + 512.
constexpr off_t kGuardByte = (off_t{1} << 30) + 0x300;

struct OpenFile {
  int fd = -1;
  int uses = 0;   // kscope connections open on the file in this process
  int holds = 0;  // FileGuards held in this process
};

std::mutex files_mutex;
std::map<FileId, OpenFile> files;

std::optional<FileId> IdOf(const std::string& path) {
  struct stat st {};
  if (path.empty() || path == ":memory:" || ::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

// Closes the descriptor once nothing in this process uses or holds it; under files_mutex.
void CloseIfUnused(const FileId& id) {
  auto it = files.find(id);
  if (it == files.end() || it->second.uses > 0 || it->second.holds > 0) return;
  if (it->second.fd >= 0) ::close(it->second.fd);
  files.erase(it);
}

bool SetLock(int fd, short type) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = kGuardByte;
  lock.l_len = 1;
  return ::fcntl(fd, F_OFD_SETLK, &lock) == 0;
}

}  // namespace

FileUse::FileUse(const std::string& path) : id_(IdOf(path)) {
  if (!id_) return;
  const std::lock_guard lock(files_mutex);
  ++files[*id_].uses;
}

FileUse& FileUse::operator=(FileUse&& other) noexcept {
  if (this != &other) {
    Release();
    id_ = std::exchange(other.id_, std::nullopt);
  }
  return *this;
}

FileUse::~FileUse() { Release(); }

void FileUse::Release() {
  if (!id_) return;
  const std::lock_guard lock(files_mutex);
  --files[*id_].uses;
  CloseIfUnused(*id_);
  id_.reset();
}

std::optional<FileGuard> FileGuard::TryTake(const std::string& path, Kind kind) {
  const auto id = IdOf(path);
  if (!id) return std::nullopt;
  const std::lock_guard lock(files_mutex);
  OpenFile& file = files[*id];
  if (file.fd < 0) {
    const int flags = ::access(path.c_str(), W_OK) == 0 ? O_RDWR : O_RDONLY;
    file.fd = ::open(path.c_str(), flags | O_CLOEXEC | O_NOFOLLOW);
  }
  // Held already in this process: the same descriptor, so the kinds do not exclude each other.
  const bool taken = file.fd >= 0 && (file.holds > 0 || SetLock(file.fd, kind == Kind::kShared ? F_RDLCK : F_WRLCK));
  if (!taken) {
    CloseIfUnused(*id);
    return std::nullopt;
  }
  ++file.holds;
  return FileGuard(*id);
}

std::optional<FileGuard> FileGuard::TakeWithin(const std::string& path, Kind kind, std::chrono::milliseconds patience) {
  const auto until = std::chrono::steady_clock::now() + patience;
  for (;;) {
    auto guard = TryTake(path, kind);
    if (guard || std::chrono::steady_clock::now() >= until || !IdOf(path)) return guard;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

FileGuard& FileGuard::operator=(FileGuard&& other) noexcept {
  if (this != &other) {
    Release();
    id_ = std::exchange(other.id_, std::nullopt);
  }
  return *this;
}

void FileGuard::Release() {
  if (!id_) return;
  const std::lock_guard lock(files_mutex);
  OpenFile& file = files[*id_];
  if (--file.holds == 0 && file.fd >= 0) SetLock(file.fd, F_UNLCK);
  CloseIfUnused(*id_);
  id_.reset();
}

}  // namespace kscope::sql
