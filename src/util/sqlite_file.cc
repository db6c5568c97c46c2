#include "util/sqlite_file.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace kscope {

namespace {
uint32_t BigEndian(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}
}  // namespace

Status CheckSqliteFile(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error{path, "cannot read the file (" + ec.message() + ")", "check the path and its permissions"};
  std::array<uint8_t, 100> h{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(h.data()), h.size());
  if (in.gcount() < 16 || std::memcmp(h.data(), "SQLite format 3\0", 16) != 0) {
    return Error{path, "not an SQLite database", "export the report with: nsys export --type sqlite REPORT.nsys-rep"};
  }
  if (in.gcount() < static_cast<std::streamsize>(h.size())) {
    return Error{path, fmt::format("truncated: {} bytes, shorter than the 100-byte SQLite header", size),
                 "copy or export the file again"};
  }
  uint32_t page_size = BigEndian(&h[16], 2);
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    return Error{path, "corrupt SQLite header (bad page size)", "copy or export the file again"};
  }
  // The in-header page count is valid when the change counter matches version-valid-for.
  const uint32_t pages = BigEndian(&h[28], 4);
  const bool count_valid = pages != 0 && BigEndian(&h[24], 4) == BigEndian(&h[92], 4);
  const uint64_t expected = static_cast<uint64_t>(pages) * page_size;
  if (count_valid && size < expected) {
    return Error{path, fmt::format("truncated: the SQLite header says {} bytes, the file has {}", expected, size),
                 "copy or export the file again"};
  }
  if (size % page_size != 0) {
    return Error{path, fmt::format("truncated: {} bytes is not a whole number of {}-byte pages", size, page_size),
                 "copy or export the file again"};
  }
  return Status::Ok();
}

}  // namespace kscope
