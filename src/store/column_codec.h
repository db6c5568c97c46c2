// Encoding of one chunk of a 64-bit integer column: deltas, zigzag, LEB128 varints, zstd.
// Timestamps and ids change slowly from row to row, so a chunk of 65,536 kernel start
// times shrinks from 512 KiB to a few KiB.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "util/status.h"

namespace kscope::store {

inline constexpr int64_t kNull = std::numeric_limits<int64_t>::min();
inline constexpr const char* kEncoding = "dzv-zstd";

// Encodes a chunk value by value, holding only the varints (1 to 3 bytes for most values)
// until Finish() compresses them and starts the next chunk.
class ColumnEncoder {
 public:
  void Append(int64_t value);
  std::vector<uint8_t> Finish();
  [[nodiscard]] size_t rows() const { return rows_; }

 private:
  std::vector<uint8_t> varints_;
  uint64_t prev_ = 0;
  size_t rows_ = 0;
};

std::vector<uint8_t> EncodeColumn(std::span<const int64_t> values);

// Appends the decoded values to `out`. Fails if the blob is corrupt or holds a different
// number of values than `rows`.
Status DecodeColumn(std::span<const uint8_t> blob, size_t rows, std::vector<int64_t>& out);

}  // namespace kscope::store
