// DecodeColumn with arbitrary blobs and row counts, and EncodeColumn round trips.
// Input: one mode byte, then
//   mode 0 (decode): the row count as 8 little-endian bytes, then the blob;
//   mode 1 (round trip): the values to encode, 8 little-endian bytes each.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "store/column_codec.h"

namespace {

uint64_t LittleEndian(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void Decode(std::span<const uint8_t> in) {
  if (in.size() < 8) return;
  const uint64_t rows = LittleEndian(in.data());
  const std::span<const uint8_t> blob = in.subspan(8);
  std::vector<int64_t> out = {7};  // decoding appends: what was there stays
  if (!kscope::store::DecodeColumn(blob, rows, out).ok()) return;
  if (out.size() != rows + 1 || out[0] != 7) std::abort();
  // What decodes must encode and decode back to the same values.
  const std::span<const int64_t> values(out.data() + 1, out.size() - 1);
  std::vector<int64_t> again;
  if (!kscope::store::DecodeColumn(kscope::store::EncodeColumn(values), values.size(), again).ok()) std::abort();
  if (!std::equal(again.begin(), again.end(), values.begin(), values.end())) std::abort();
}

void RoundTrip(std::span<const uint8_t> in) {
  std::vector<int64_t> values(in.size() / 8);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(LittleEndian(&in[i * 8]));
  const std::vector<uint8_t> blob = kscope::store::EncodeColumn(values);
  std::vector<int64_t> out;
  if (!kscope::store::DecodeColumn(blob, values.size(), out).ok() || out != values) std::abort();
  // One row more or fewer than encoded is corrupt, never a crash or a wrong answer.
  out.clear();
  if (kscope::store::DecodeColumn(blob, values.size() + 1, out).ok()) std::abort();
  out.clear();
  if (!values.empty() && kscope::store::DecodeColumn(blob, values.size() - 1, out).ok()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> in(data + 1, size - 1);
  if ((data[0] & 1) == 0) {
    Decode(in);
  } else {
    RoundTrip(in);
  }
  return 0;
}
