// Maps the export's StringIds ids to ids in the store's shared string table, interning
// only the strings that rows actually use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "store/store.h"
#include "util/sqlite.h"

namespace kscope::import::nsys {

class StringMapper {
 public:
  explicit StringMapper(store::Store& store) : store_(store) {}
  Status Load(sql::Db& export_db);
  // The store id of export string `id`; nullopt if the export has no such string.
  Result<std::optional<int64_t>> Map(int64_t id);
  [[nodiscard]] const std::string* Value(int64_t id) const;

 private:
  store::Store& store_;
  std::unordered_map<int64_t, std::string> values_;
  std::unordered_map<int64_t, int64_t> mapped_;
};

}  // namespace kscope::import::nsys
