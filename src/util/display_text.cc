#include "util/display_text.h"

#include <fmt/format.h>

#include <cstdint>

namespace kscope {

namespace {
// The length of the valid UTF-8 sequence at s[i] (no overlongs, surrogates or code points
// above U+10FFFF), or 0 if the byte there starts none.
size_t Utf8Length(std::string_view s, size_t i, uint32_t& code) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b = byte(i);
  // The sequence's length, its first byte's payload bits and the least code point it may hold.
  size_t n = 0;
  uint32_t min = 0;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
    code = b & 0x1Fu;
    min = 0x80;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    code = b & 0x0Fu;
    min = 0x800;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    code = b & 0x07u;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return n;
}
}  // namespace

std::string DisplayText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    if (b < 0x80) {
      switch (b) {
        case '\0': out += "\\0"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (b < 0x20 || b == 0x7F) {
            out += fmt::format("\\x{:02x}", b);
          } else {
            out += static_cast<char>(b);
          }
      }
      ++i;
      continue;
    }
    uint32_t code = 0;
    const size_t n = Utf8Length(s, i, code);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
      ++i;
    } else if (code < 0xA0) {
      out += fmt::format("\\u{:04x}", code);  // a C1 control character
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace kscope
