// A small JSON file (a run directory's manifest) read with bounds on its size and nesting, so
// that a damaged or hostile file is refused with one line instead of filling memory.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "util/status.h"

namespace kscope {

struct JsonBounds {
  size_t max_bytes = size_t{16} << 20;
  size_t max_depth = 64;
};

// The deepest nesting of arrays and objects in `text` (brackets inside strings not counted),
// stopping once past `stop_past`.
size_t JsonDepth(std::string_view text, size_t stop_past);

// The JSON value in `path`; a discarded value (nlohmann's is_discarded) when it does not parse.
// An error names the file and the bound when it is larger or nested deeper than `bounds`, with
// `fix` as what to do.
Result<nlohmann::json> ReadJsonFile(const std::string& path, const JsonBounds& bounds, const std::string& fix);

}  // namespace kscope
