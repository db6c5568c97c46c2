// Maps the export's StringIds ids to ids in the store's shared string table, interning
// only the strings that rows use. One ExportStrings is loaded per file; each reader thread
// has its own StringMapper (its own cache) and touches the store only under the lock.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "store/store.h"
#include "util/sqlite.h"

namespace kscope::import::nsys {

// Bounds no nsys export comes near (the devset's longest string, a demangled kernel name, has
// 2,619 bytes; its StringIds hold 102 KB in all), so that a damaged or hostile export is refused
// with one line instead of filling memory and the store. The total bounds what Load holds.
inline constexpr size_t kMaxExportStringBytes = size_t{1} << 20;
inline constexpr size_t kMaxExportStringsBytes = size_t{512} << 20;

// An error naming `path` for a string of `bytes` bytes in `where` ("StringIds id 7") past
// kMaxExportStringBytes; nullopt within it.
std::optional<Error> StringPastBound(const std::string& path, std::string_view where, size_t bytes);

class ExportStrings {
 public:
  // Every string of StringIds; an error names `path` and the string or total past its bound.
  Status Load(sql::Db& export_db, const std::string& path);
  [[nodiscard]] const std::string* Value(int64_t id) const;

 private:
  std::unordered_map<int64_t, std::string> values_;
};

class StringMapper {
 public:
  StringMapper(store::Store& store, std::mutex& store_lock, const ExportStrings& strings)
      : store_(store), lock_(store_lock), strings_(strings) {}
  // The store id of export string `id`; nullopt if the export has no such string.
  Result<std::optional<int64_t>> Map(int64_t id);
  // The store id of `value`.
  Result<int64_t> Intern(const std::string& value);

 private:
  store::Store& store_;
  std::mutex& lock_;
  const ExportStrings& strings_;
  std::unordered_map<int64_t, int64_t> mapped_;
};

}  // namespace kscope::import::nsys
