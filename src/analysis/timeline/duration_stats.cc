#include "analysis/timeline/duration_stats.h"

#include <algorithm>
#include <cmath>

namespace kscope::analysis {

DurationStats ComputeStats(std::vector<int64_t>& values) {
  DurationStats s;
  if (values.empty()) return s;
  s.n = static_cast<int64_t>(values.size());
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  for (int64_t v : values) s.total += v;
  s.mean = static_cast<double>(s.total) / static_cast<double>(s.n);
  // The median by selection, not sorting: linear in the group's size.
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1) {
    s.median = static_cast<double>(*mid);
  } else {
    const int64_t below = *std::max_element(values.begin(), mid);
    s.median = (static_cast<double>(below) + static_cast<double>(*mid)) / 2.0;
  }
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
