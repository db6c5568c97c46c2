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

class ExportStrings {
 public:
  Status Load(sql::Db& export_db);
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
