// The columns that say which launch a row of an ncu CSV page is about (ID, process, kernel
// name, shape, NVTX), found by their header names, shared by the raw and the details page.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/ncu_writer.h"
#include "util/status.h"

namespace kscope::import::ncu {

class LaunchColumns {
 public:
  // Finds the identity columns of `header`; an error when "ID" or "Kernel Name" is missing.
  static Result<LaunchColumns> Find(const std::vector<std::string>& header);

  // Whether column `i` belongs to the launch's identity (not a metric).
  [[nodiscard]] bool IsIdentity(size_t i) const;
  // The launch a row describes, or what is wrong with the row.
  [[nodiscard]] Result<store::NcuLaunchKey> Key(const std::vector<std::string>& row) const;

 private:
  std::optional<size_t> id_, pid_, process_, host_, name_, context_, stream_, block_, grid_, device_, cc_;
  std::vector<size_t> nvtx_;
  std::vector<bool> identity_;
};

}  // namespace kscope::import::ncu
