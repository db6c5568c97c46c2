#include "util/temp_dir.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/interrupt_note.h"
#include "util/stale_scratch.h"

namespace kscope {

namespace fs = std::filesystem;

Result<TempDir> TempDir::Make(std::string_view prefix) {
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) return Error{"", "no folder for temporary files: " + ec.message(), "set TMPDIR to a writable folder"};
  return MakeIn(tmp.string(), prefix);
}

Result<TempDir> TempDir::MakeIn(const std::string& folder, std::string_view prefix) {
  const fs::path tmp = folder;
  (void)RemoveStaleScratch(tmp, prefix);  // what a killed kscope left here
  std::string name = (tmp / (std::string(prefix) + ScratchTag() + "XXXXXX")).string();
  if (::mkdtemp(name.data()) == nullptr) {
    return Error{tmp.string(), fmt::format("cannot make a temporary folder: {}", std::strerror(errno)),
                 "set TMPDIR to a writable folder with free space"};
  }
  return TempDir(std::move(name));
}

TempDir::TempDir(std::string path) : path_(std::move(path)) { RemoveOnInterrupt(path_); }

Status TempDir::RenameTo(const std::string& to) {
  std::error_code ec;
  fs::rename(path_, to, ec);
  if (ec) return Error{to, fmt::format("cannot put the folder in place: {}", ec.message()), ""};
  ForgetOnInterrupt(path_);
  path_.clear();
  return Status::Ok();
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
  ForgetOnInterrupt(path_);
}

}  // namespace kscope
