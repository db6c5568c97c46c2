// The protobuf wire format, as much of it as an .ncu-rep needs: a cursor over one encoded
// message that hands out (field number, wire type, value) one field at a time. Every read
// is bounds-checked; a malformed message ends the walk with an error, never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kscope::import::ncu::wire {

enum class Type : uint8_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

struct Field {
  uint32_t number = 0;
  Type type = Type::kVarint;
  uint64_t bits = 0;      // kVarint: the value; kFixed64/kFixed32: the raw little-endian bits
  std::string_view data;  // kBytes: the payload (a string or an embedded message)

  [[nodiscard]] double AsDouble() const;  // kFixed64 read as an IEEE double
};

// Reads a little-endian uint32 at `p` (the container's size prefixes).
uint32_t LoadU32(const char* p);

class Cursor {
 public:
  explicit Cursor(std::string_view message) : rest_(message) {}
  // The next field, or nullopt at the end of the message or on malformed bytes (then
  // failed() is true). Groups (wire types 3 and 4) count as malformed: reports have none.
  std::optional<Field> Next();
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  std::optional<uint64_t> Varint();
  std::string_view rest_;
  bool failed_ = false;
};

}  // namespace kscope::import::ncu::wire
