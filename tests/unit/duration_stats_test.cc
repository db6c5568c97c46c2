#include "analysis/timeline/duration_stats.h"

#include <gtest/gtest.h>

#include "analysis/timeline/nsys_facts.h"

namespace kscope::analysis {
namespace {

TEST(DurationStats, MatchesNsysDefinitions) {
  // tiny_cuda's four memsets: nsys prints 36031, 4, 9007.8, 9007.5, 1824, 16192, 8094.4.
  std::vector<int64_t> v = {15839, 16192, 2176, 1824};
  const DurationStats s = ComputeStats(v);
  EXPECT_EQ(s.n, 4);
  EXPECT_EQ(s.total, 36031);
  EXPECT_DOUBLE_EQ(s.mean, 9007.75);
  EXPECT_DOUBLE_EQ(s.median, 9007.5);  // mean of the two middle values
  EXPECT_EQ(s.min, 1824);
  EXPECT_EQ(s.max, 16192);
  EXPECT_NEAR(s.stddev, 8094.4, 0.05);  // sample standard deviation (n - 1)
}

TEST(DurationStats, SingleValueHasZeroStddevAndEmptyIsZero) {
  std::vector<int64_t> one = {747047};
  const DurationStats s = ComputeStats(one);
  EXPECT_EQ(s.stddev, 0.0);
  EXPECT_EQ(s.median, 747047.0);
  std::vector<int64_t> none;
  EXPECT_EQ(ComputeStats(none).n, 0);
}

// The importer keeps API call durations in four bytes where they fit: those that do not
// (4.3 s or longer, or negative) keep their full value.
TEST(DurationStats, NarrowDurationsKeepEveryValue) {
  Durations d;
  for (int64_t v : {int64_t{5}, int64_t{UINT32_MAX}, int64_t{UINT32_MAX} + 1, int64_t{-3}, int64_t{9'000'000'000}}) {
    d.Add(v);
  }
  EXPECT_EQ(d.narrow.size(), 2U);
  EXPECT_EQ(d.All(), (std::vector<int64_t>{5, UINT32_MAX, int64_t{UINT32_MAX} + 1, -3, 9'000'000'000}));
}

}  // namespace
}  // namespace kscope::analysis
