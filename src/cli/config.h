// kscope's configuration file (YAML). Today it holds the bottleneck thresholds:
//   classify: {busy_pct: 60, launch_us: 5, launch_waves: 1, low_occupancy_pct: 25}
#pragma once

#include <string>

#include "analysis/bottleneck.h"
#include "util/status.h"

namespace kscope::cli {

struct Config {
  analysis::ClassifyThresholds classify;
};

// Defaults when `path` is empty; an error naming the key when a value is not a number.
Result<Config> LoadConfig(const std::string& path);

}  // namespace kscope::cli
