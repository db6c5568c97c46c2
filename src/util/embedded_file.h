// A file built into kscope as bytes when kscope is built (cmake/EmbedFiles.cmake), so that
// nothing is read from the machine it runs on.
#pragma once

#include <cstddef>
#include <string_view>

namespace kscope::embedded {

struct EmbeddedFile {
  std::string_view name;  // the file's name where it was built from, e.g. "vega-util.min.js"
  const char* begin;      // its bytes, [begin, end)
  const char* end;
  [[nodiscard]] std::string_view bytes() const { return {begin, static_cast<std::size_t>(end - begin)}; }
};

}  // namespace kscope::embedded
