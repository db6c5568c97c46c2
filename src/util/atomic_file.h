// Files written whole or not at all. The bytes go to a temporary file in the same folder
// (".NAME.kscope-<pid>-XXXXXX"; one a killed kscope left is removed by the next,
// util/stale_scratch.h), are flushed to the disk (fsync) and the file is renamed over NAME,
// so a reader, a crash, a full disk or a size limit leaves the previous NAME or none, never a
// truncated one. Every file kscope writes goes through here (the logs of the programs
// `kscope profile` runs, appended as they run, and the SQLite store excepted).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "util/status.h"

namespace kscope {

class AtomicFile {
 public:
  // Creates the temporary file beside `path`. Errors: the folder is missing or not writable.
  static Result<AtomicFile> Create(const std::filesystem::path& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temporary file unless Commit succeeded

  // Appends bytes (the whole of them, or an error such as "No space left on device").
  Status Write(std::string_view bytes);
  // The temporary file's descriptor, e.g. for a child process's stdout.
  [[nodiscard]] int fd() const { return fd_; }
  // fsync, close, rename over the path, fsync the folder. After an error the path is as it was.
  Status Commit();

 private:
  AtomicFile(std::filesystem::path path, std::filesystem::path temp, int fd)
      : path_(std::move(path)), temp_(std::move(temp)), fd_(fd) {}

  std::filesystem::path path_;
  std::filesystem::path temp_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes `bytes` to `path` through an AtomicFile.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace kscope
