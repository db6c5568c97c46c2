#include "import/upgrade_copy.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>  // renameat2
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "store/migrate.h"
#include "store/schema.h"
#include "util/interrupt_note.h"

namespace kscope::import {

namespace fs = std::filesystem;

namespace {

std::string PartialPath(const std::string& store, int version) {
  return fmt::format("{}.schema{}.bak.partial", store, version);
}

void RemovePartial(const std::string& partial) {
  std::error_code ec;
  fs::remove(partial, ec);
  fs::remove(partial + "-journal", ec);  // the copy's own journal, while SQLite wrote it
}

// Renames `from` to `to` unless `to` exists (never replacing a file): 0, or the errno.
int RenameNoReplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  // A file system without RENAME_NOREPLACE: link() refuses an existing name too.
  if (::link(from.c_str(), to.c_str()) != 0) return errno;
  ::unlink(from.c_str());
  return 0;
}

// `partial` under the first free name of STORE.schemaN.bak, .bak.1, ...: the name, or "" when
// it could not be moved (or another kscope moved it first).
std::string MoveToFinalName(const std::string& partial, const std::string& store, int version) {
  const std::string base = fmt::format("{}.schema{}.bak", store, version);
  for (int n = 0; n < 1000; ++n) {
    const std::string name = n == 0 ? base : fmt::format("{}.{}", base, n);
    const int err = RenameNoReplace(partial, name);
    if (err == 0) return name;
    if (err != EEXIST) return "";
  }
  return "";
}

// Whether `partial` is a whole SQLite file, read from its header without opening it through
// SQLite (which could leave a -wal or -shm beside it): SQLite finished writing it (no journal
// beside it), and it is as long as its header says (page size times page count).
bool WholeCopy(const std::string& partial) {
  std::error_code ec;
  if (fs::exists(partial + "-journal", ec)) return false;
  std::ifstream in(partial, std::ios::binary);
  std::array<unsigned char, 100> header{};
  if (!in.read(reinterpret_cast<char*>(header.data()), header.size())) return false;
  if (std::string_view(reinterpret_cast<const char*>(header.data()), 16) != std::string_view("SQLite format 3\0", 16)) {
    return false;
  }
  auto be = [&](size_t at, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | header[at + i];
    return v;
  };
  const uint64_t page_size = be(16, 2) == 1 ? 65536 : be(16, 2);
  const uint64_t pages = be(28, 4);
  return pages > 0 && page_size * pages == fs::file_size(partial, ec) && !ec;
}

bool MayWriteFolderOf(const std::string& path) {
  std::error_code ec;
  const fs::path dir = fs::absolute(path, ec).parent_path();
  return !ec && ::access(dir.c_str(), W_OK) == 0;
}

}  // namespace

UpgradeCopy::UpgradeCopy(std::string store, int version)
    : store_(std::move(store)), version_(version), partial_(PartialPath(store_, version)) {}

UpgradeCopy::UpgradeCopy(UpgradeCopy&& other) noexcept
    : store_(std::move(other.store_)), version_(other.version_), partial_(std::exchange(other.partial_, "")) {}

Result<UpgradeCopy> UpgradeCopy::Make(sql::Db& reader, const std::string& store, int version) {
  UpgradeCopy copy(store, version);
  // The store is still of `version` under this write lock: a partial copy is a killed upgrade's.
  RemovePartial(copy.partial_);
  InstallInterruptNote();
  RemoveOnInterrupt(copy.partial_);
  RemoveOnInterrupt(copy.partial_ + "-journal");
  KSCOPE_RETURN_IF_ERROR(store::CopyDatabase(reader, copy.partial_));
  return copy;
}

UpgradeCopy::~UpgradeCopy() {
  if (partial_.empty()) return;
  ForgetOnInterrupt(partial_);
  ForgetOnInterrupt(partial_ + "-journal");
  RemovePartial(partial_);
}

std::string UpgradeCopy::Keep() {
  const std::string partial = std::exchange(partial_, "");
  ForgetOnInterrupt(partial);
  ForgetOnInterrupt(partial + "-journal");
  const std::string name = MoveToFinalName(partial, store_, version_);
  return name.empty() ? partial : name;
}

void KeepCommittedCopies(const std::string& store) {
  if (!MayWriteFolderOf(store)) return;
  for (int version = 1; version < store::kSchemaVersion; ++version) {
    const std::string partial = PartialPath(store, version);
    std::error_code ec;
    if (!fs::exists(partial, ec) || !WholeCopy(partial)) continue;
    (void)MoveToFinalName(partial, store, version);
  }
}

}  // namespace kscope::import
