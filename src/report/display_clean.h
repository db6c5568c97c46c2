// In-place DisplayText for the parts of a typed report (ForDisplay of the run report and of the
// atlas): a text, an optional text, a list of texts, a map's keys.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/display_text.h"

namespace kscope::report::display {

inline void Clean(std::string& s) { s = DisplayText(s); }
inline void Clean(std::optional<std::string>& s) {
  if (s) Clean(*s);
}
inline void Clean(std::vector<std::string>& texts) {
  for (auto& s : texts) Clean(s);
}
// A map's keys; keys that become equal keep the last one, as JSON objects do.
template <class Value>
void CleanKeys(std::map<std::string, Value>& map) {
  std::map<std::string, Value> out;
  for (auto& [key, value] : map) out[DisplayText(key)] = std::move(value);
  map = std::move(out);
}

}  // namespace kscope::report::display
