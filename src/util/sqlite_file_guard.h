// Keeping checkpoints out of a database file while a reader who may not write reads the file
// itself. Such a reader, with no -wal beside the store, opens it immutable (it cannot make the
// -wal and -shm files a WAL reader needs): SQLite then takes no lock, and a checkpoint by a
// writer that starts meanwhile would write pages under it (a torn read: "database disk image is
// malformed", or rows of two states). The reader holds a shared lock on one byte of the file that
// SQLite never locks; every kscope connection that may write the file moves its log into it
// (checkpoint) only while holding that byte exclusively, and leaves the log for later otherwise.
//
// The locks are open-file-description locks on one descriptor per file and process, kept open
// while any kscope connection to the file is: closing a descriptor would drop the ordinary
// POSIX locks SQLite holds on the same file through its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace kscope::sql {

// A connection's share of its file's descriptor: one per open connection (util/sqlite.h's Db),
// so the descriptor closes only after the last connection to the file.
class FileUse {
 public:
  FileUse() = default;
  explicit FileUse(const std::string& path);
  FileUse(FileUse&& other) noexcept : id_(std::exchange(other.id_, std::nullopt)) {}
  FileUse& operator=(FileUse&& other) noexcept;
  FileUse(const FileUse&) = delete;
  FileUse& operator=(const FileUse&) = delete;
  ~FileUse();

 private:
  void Release();
  std::optional<std::pair<uint64_t, uint64_t>> id_;  // device and inode
};

// The byte held shared (a reader of the file itself) or exclusive (a checkpoint, a close).
class FileGuard {
 public:
  enum class Kind { kShared, kExclusive };
  // nullopt when the other kind is held now (by another process), or the file cannot be opened.
  static std::optional<FileGuard> TryTake(const std::string& path, Kind kind);
  // The same, trying again for up to `patience` (another kscope's checkpoint or close is short).
  static std::optional<FileGuard> TakeWithin(const std::string& path, Kind kind, std::chrono::milliseconds patience);
  FileGuard(FileGuard&& other) noexcept : id_(std::exchange(other.id_, std::nullopt)) {}
  FileGuard& operator=(FileGuard&& other) noexcept;
  FileGuard(const FileGuard&) = delete;
  FileGuard& operator=(const FileGuard&) = delete;
  ~FileGuard() { Release(); }

 private:
  explicit FileGuard(std::pair<uint64_t, uint64_t> id) : id_(id) {}
  void Release();
  std::optional<std::pair<uint64_t, uint64_t>> id_;
};

}  // namespace kscope::sql
