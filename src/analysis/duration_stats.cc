#include "analysis/duration_stats.h"

#include <algorithm>
#include <cmath>

namespace kscope::analysis {

DurationStats ComputeStats(std::vector<int64_t>& values) {
  DurationStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.n = static_cast<int64_t>(values.size());
  for (int64_t v : values) s.total += v;
  s.min = values.front();
  s.max = values.back();
  s.mean = static_cast<double>(s.total) / static_cast<double>(s.n);
  const size_t mid = values.size() / 2;
  s.median = values.size() % 2 == 1 ? static_cast<double>(values[mid])
                                    : (static_cast<double>(values[mid - 1]) + static_cast<double>(values[mid])) / 2.0;
  if (s.n > 1) {
    double ss = 0;
    for (int64_t v : values) {
      const double d = static_cast<double>(v) - s.mean;
      ss += d * d;
    }
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  return s;
}

}  // namespace kscope::analysis
