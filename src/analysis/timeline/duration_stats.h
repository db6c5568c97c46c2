// The statistics nsys's summary reports give for a group of values: count, total, mean,
// median (mean of the two middle values for an even count), min, max, and the sample
// standard deviation (n - 1; 0 for a single value).
#pragma once

#include <cstdint>
#include <vector>

namespace kscope::analysis {

struct DurationStats {
  int64_t n = 0;
  int64_t total = 0;
  double mean = 0;
  double median = 0;
  int64_t min = 0;
  int64_t max = 0;
  double stddev = 0;
};

// Reorders `values` (median by selection). An empty group gives all zeros.
DurationStats ComputeStats(std::vector<int64_t>& values);

}  // namespace kscope::analysis
