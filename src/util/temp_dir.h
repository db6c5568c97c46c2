// A private temporary folder: a new name made by mkdtemp under $TMPDIR (else /tmp), mode 0700,
// so no other user's folder or link is ever written through; removed with all it holds when
// this goes away.
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace kscope {

class TempDir {
 public:
  // A folder named `prefix` and six random characters, e.g. "kscope-import-" -> kscope-import-Xy3kQz.
  static Result<TempDir> Make(std::string_view prefix);
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace kscope
