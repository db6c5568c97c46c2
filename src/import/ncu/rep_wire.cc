#include "import/ncu/rep_wire.h"

#include <bit>
#include <cstring>

namespace kscope::import::ncu::wire {

double Field::AsDouble() const { return std::bit_cast<double>(bits); }

uint32_t LoadU32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 | static_cast<uint32_t>(b[2]) << 16 |
         static_cast<uint32_t>(b[3]) << 24;
}

std::optional<uint64_t> Cursor::Varint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (rest_.empty()) return std::nullopt;
    const auto byte = static_cast<unsigned char>(rest_.front());
    rest_.remove_prefix(1);
    v |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  return std::nullopt;  // more than ten bytes: not a varint
}

std::optional<Field> Cursor::Next() {
  if (rest_.empty() || failed_) return std::nullopt;
  auto fail = [&]() -> std::optional<Field> {
    failed_ = true;
    return std::nullopt;
  };
  const auto key = Varint();
  if (!key || (*key >> 3) == 0 || (*key >> 3) > 0x1FFFFFFF) return fail();
  Field f;
  f.number = static_cast<uint32_t>(*key >> 3);
  switch (*key & 7) {
    case 0: {
      const auto v = Varint();
      if (!v) return fail();
      f.type = Type::kVarint;
      f.bits = *v;
      return f;
    }
    case 1:
    case 5: {
      const size_t n = (*key & 7) == 1 ? 8 : 4;
      if (rest_.size() < n) return fail();
      uint64_t bits = 0;
      for (size_t i = 0; i < n; ++i) bits |= static_cast<uint64_t>(static_cast<unsigned char>(rest_[i])) << (8 * i);
      rest_.remove_prefix(n);
      f.type = n == 8 ? Type::kFixed64 : Type::kFixed32;
      f.bits = bits;
      return f;
    }
    case 2: {
      const auto n = Varint();
      if (!n || *n > rest_.size()) return fail();
      f.type = Type::kBytes;
      f.data = rest_.substr(0, static_cast<size_t>(*n));
      rest_.remove_prefix(static_cast<size_t>(*n));
      return f;
    }
    default: return fail();
  }
}

}  // namespace kscope::import::ncu::wire
