#include "store/column_codec.h"

#include <zstd.h>

#include <algorithm>
#include <limits>
#include <memory>

namespace kscope::store {

namespace {
constexpr int kZstdLevel = 1;
constexpr size_t kDecodeStep = size_t{1} << 16;  // decode buffer growth, bytes

uint64_t ZigZag(uint64_t d) { return (d << 1) ^ (0 - (d >> 63)); }
uint64_t UnZigZag(uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }
}  // namespace

void ColumnEncoder::Append(int64_t value) {
  const auto u = static_cast<uint64_t>(value);
  uint64_t z = ZigZag(u - prev_);  // wrapping arithmetic: reversible for every value
  prev_ = u;
  while (z >= 0x80) {
    varints_.push_back(static_cast<uint8_t>(z | 0x80));
    z >>= 7;
  }
  varints_.push_back(static_cast<uint8_t>(z));
  ++rows_;
}

std::vector<uint8_t> ColumnEncoder::Finish() {
  std::vector<uint8_t> out(ZSTD_compressBound(varints_.size()));
  const size_t n = ZSTD_compress(out.data(), out.size(), varints_.data(), varints_.size(), kZstdLevel);
  out.resize(ZSTD_isError(n) ? 0 : n);
  varints_.clear();
  prev_ = 0;
  rows_ = 0;
  return out;
}

std::vector<uint8_t> EncodeColumn(std::span<const int64_t> values) {
  ColumnEncoder encoder;
  for (int64_t v : values) encoder.Append(v);
  return encoder.Finish();
}

Status DecodeColumn(std::span<const uint8_t> blob, size_t rows, std::vector<int64_t>& out) {
  const Error corrupt{"", "a stored event column is corrupt", "re-import the run"};
  // Every value takes 1 to 10 bytes, so the frame's declared size must fit `rows`. Neither
  // is trusted for allocation: the buffer grows only as the frame actually decompresses.
  const unsigned long long size = ZSTD_getFrameContentSize(blob.data(), blob.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size < rows ||
      rows > std::numeric_limits<size_t>::max() / 10 || size > rows * 10) {
    return corrupt;
  }
  const std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (dctx == nullptr) return corrupt;
  std::vector<uint8_t> varints;
  ZSTD_inBuffer in{blob.data(), blob.size(), 0};
  size_t filled = 0;
  while (true) {
    if (filled == varints.size() && varints.size() < size) {
      varints.resize(std::min<size_t>(size, varints.size() + kDecodeStep));
    }
    ZSTD_outBuffer o{varints.data(), varints.size(), filled};
    const size_t consumed = in.pos;
    const size_t left = ZSTD_decompressStream(dctx.get(), &o, &in);
    if (ZSTD_isError(left)) return corrupt;
    const bool progress = o.pos != filled || in.pos != consumed;
    filled = o.pos;
    if (left == 0) break;           // the frame is complete
    if (!progress) return corrupt;  // cut short, or more data than the frame declares
  }
  if (filled != size || in.pos != blob.size()) return corrupt;

  // Grow geometrically: reserving exactly size + rows for each chunk would move the whole
  // column once per chunk.
  if (out.capacity() < out.size() + rows) out.reserve(std::max(out.size() + rows, 2 * out.capacity()));
  uint64_t prev = 0;
  size_t pos = 0;
  for (size_t i = 0; i < rows; ++i) {
    uint64_t z = 0;
    int shift = 0;
    while (true) {
      if (pos >= varints.size() || shift > 63) return corrupt;
      const uint8_t b = varints[pos++];
      z |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
      shift += 7;
    }
    prev += UnZigZag(z);
    out.push_back(static_cast<int64_t>(prev));
  }
  if (pos != varints.size()) return corrupt;
  return Status::Ok();
}

}  // namespace kscope::store
