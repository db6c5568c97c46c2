// A run's profiled launches (ncu results) with their metrics, loaded from the store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/ncu_writer.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

struct NcuValue {
  std::optional<double> number;  // in `unit`, a base unit
  std::string text;              // as printed, when not a number
  std::string unit;
};

struct NcuLaunch {
  int64_t id = 0;
  store::NcuLaunchKey key;
  std::optional<int64_t> kernel_index;  // the same launch in an nsys kernel stream (row) ...
  std::optional<int64_t> kernel_run;    // ... of this run, or of the discovery run it reused
  std::unordered_map<std::string, NcuValue> metrics;

  // The metric's number under its name or one of its alternate names.
  [[nodiscard]] std::optional<double> Number(std::string_view metric) const;
  [[nodiscard]] bool Has(std::string_view metric) const;
};

// Every launch of the run in launch-id order; empty when the run has no ncu data.
Result<std::vector<NcuLaunch>> LoadNcuLaunches(store::Store& store, int64_t run_id);

}  // namespace kscope::analysis
