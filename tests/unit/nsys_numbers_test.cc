#include "report/nsys_numbers.h"

#include <gtest/gtest.h>

namespace kscope::report {
namespace {

TEST(Round1, RoundsExactTiesAwayFromZeroAsSqliteDoes) {
  EXPECT_EQ(Round1(1234.25).text, "1234.3");  // printf("%.1f") would say 1234.2
  EXPECT_EQ(Round1(-1234.25).text, "-1234.3");
  EXPECT_EQ(Round1(0.75).text, "0.8");
}

TEST(Round1, RoundsTheDoublesValueNotItsDecimalSpelling) {
  EXPECT_EQ(Round1(2256.95).text, "2256.9");  // the double is 2256.9499999...
  EXPECT_EQ(Round1(4906398.0).text, "4906398.0");
  EXPECT_EQ(Round1(-0.01).text, "0.0");
}

TEST(Megabytes, ThreeDecimalsOfMillionsOfBytes) {
  EXPECT_EQ(Megabytes(131072000).text, "131.072");
  EXPECT_EQ(Megabytes(0).text, "0.000");
  EXPECT_EQ(Megabytes(4194304).text, "4.194");
}

}  // namespace
}  // namespace kscope::report
