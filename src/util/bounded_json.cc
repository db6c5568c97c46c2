#include "util/bounded_json.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

namespace kscope {

size_t JsonDepth(std::string_view text, size_t stop_past) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > stop_past) break;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Result<nlohmann::json> ReadJsonFile(const std::string& path, const JsonBounds& bounds, const std::string& fix) {
  const std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (f == nullptr) return Error{path, "cannot open the file", "check the path and its permissions"};
  std::string text;
  char buf[1 << 16];
  size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, f.get())) > 0) {
    if (text.size() + got > bounds.max_bytes) {
      return Error{path,
                   fmt::format("larger than {} MiB, kscope's bound for this file (what kscope writes stays near a "
                               "few KB)",
                               bounds.max_bytes >> 20),
                   fix};
    }
    text.append(buf, got);
  }
  if (std::ferror(f.get()) != 0) return Error{path, "read error", "check the file system"};
  if (JsonDepth(text, bounds.max_depth) > bounds.max_depth) {
    return Error{path,
                 fmt::format("arrays or objects nested more than {} deep, kscope's bound for this file (what kscope "
                             "writes nests 4 deep)",
                             bounds.max_depth),
                 fix};
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte counts from 1; a parse that ran out of text is a cut file.
    if (e.byte >= text.size()) {
      return Error{path, fmt::format("the JSON ends early, at byte {} (the file is cut short)", text.size()), fix};
    }
    const size_t at = e.byte == 0 ? 0 : e.byte - 1;
    const size_t from = at >= 20 ? at - 20 : 0;
    std::string near(text.substr(from, at - from + 20));
    for (char& c : near) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    const bool non_number = near.find("NaN") != std::string::npos || near.find("Infinity") != std::string::npos;
    return Error{path,
                 fmt::format("not valid JSON at byte {} (near \"{}\"){}", at, near,
                             non_number ? "; JSON has no NaN or Infinity" : ""),
                 fix};
  }
}

}  // namespace kscope
