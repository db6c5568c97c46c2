#include "store/column_codec.h"

#include <gtest/gtest.h>

#include <limits>

namespace kscope::store {
namespace {

TEST(ColumnCodec, RoundTripsEveryValueIncludingNullAndExtremes) {
  const std::vector<int64_t> values = {0,
                                       18586997967,
                                       18586999967,
                                       kNull,
                                       -5,
                                       std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::min() + 1,
                                       42,
                                       42};
  const auto blob = EncodeColumn(values);
  std::vector<int64_t> out;
  ASSERT_TRUE(DecodeColumn(blob, values.size(), out).ok());
  EXPECT_EQ(out, values);
}

TEST(ColumnCodec, CompressesSteadyTimestamps) {
  std::vector<int64_t> starts;
  for (int64_t i = 0; i < 65536; ++i) starts.push_back(18'000'000'000 + i * 4000 + (i % 7));
  const auto blob = EncodeColumn(starts);
  EXPECT_LT(blob.size(), starts.size() * sizeof(int64_t) / 50);
}

TEST(ColumnCodec, RejectsCorruptBlobsAndWrongCounts) {
  const std::vector<int64_t> values = {1, 2, 3};
  auto blob = EncodeColumn(values);
  std::vector<int64_t> out;
  EXPECT_FALSE(DecodeColumn(blob, 4, out).ok());
  EXPECT_FALSE(DecodeColumn(blob, 2, out).ok());
  blob[blob.size() / 2] ^= 0xff;
  out.clear();
  EXPECT_FALSE(DecodeColumn(blob, 3, out).ok());
  EXPECT_FALSE(DecodeColumn({}, 3, out).ok());
}

}  // namespace
}  // namespace kscope::store
