// A private temporary folder: a new name made by mkdtemp under $TMPDIR (else /tmp), mode 0700,
// so no other user's folder or link is ever written through; removed with all it holds when
// this goes away, and when SIGINT, SIGTERM or SIGHUP end the process (util/interrupt_note.h).
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace kscope {

class TempDir {
 public:
  // A folder named `prefix`, this process's id and six random characters, e.g. "kscope-import-"
  // -> kscope-import-4242-Xy3kQz; first, what a killed kscope left under that prefix goes
  // (util/stale_scratch.h).
  static Result<TempDir> Make(std::string_view prefix);
  // The same inside `folder` (e.g. beside where its content is renamed to once complete).
  static Result<TempDir> MakeIn(const std::string& folder, std::string_view prefix);
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  [[nodiscard]] const std::string& path() const { return path_; }
  // Renames the folder to `to` (same file system) and lets it be: it is no longer removed.
  Status RenameTo(const std::string& to);

 private:
  explicit TempDir(std::string path);
  std::string path_;
};

}  // namespace kscope
