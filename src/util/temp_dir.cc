#include "util/temp_dir.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kscope {

namespace fs = std::filesystem;

Result<TempDir> TempDir::Make(std::string_view prefix) {
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) return Error{"", "no folder for temporary files: " + ec.message(), "set TMPDIR to a writable folder"};
  std::string name = (tmp / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(name.data()) == nullptr) {
    return Error{tmp.string(), fmt::format("cannot make a temporary folder: {}", std::strerror(errno)),
                 "set TMPDIR to a writable folder with free space"};
  }
  return TempDir(std::move(name));
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

}  // namespace kscope
