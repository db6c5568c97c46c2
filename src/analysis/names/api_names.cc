#include "analysis/names/api_names.h"

namespace kscope::analysis {

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The name without '_v<digits>', '_ptsz' and '_ptds' suffixes, in any order.
std::string_view BaseName(std::string_view name) {
  for (bool changed = true; changed;) {
    changed = false;
    for (std::string_view suffix : {"_ptsz", "_ptds"}) {
      if (EndsWith(name, suffix)) name.remove_suffix(suffix.size()), changed = true;
    }
    const size_t v = name.rfind("_v");
    if (v != std::string_view::npos && v + 2 < name.size() &&
        name.find_first_not_of("0123456789", v + 2) == std::string_view::npos) {
      name = name.substr(0, v);
      changed = true;
    }
  }
  return name;
}

}  // namespace

std::string ApiDisplayName(std::string_view raw) {
  if (raw.size() >= 6 && raw.substr(raw.size() - 6, 2) == "_v") raw.remove_suffix(6);
  return std::string(raw);
}

bool SynchronizesHost(std::string_view raw) {
  const std::string_view name = BaseName(raw);
  if (!name.starts_with("cu")) return false;
  if (EndsWith(name, "Synchronize")) return true;
  const bool copy = name.starts_with("cudaMemcpy") || name.starts_with("cuMemcpy");
  return copy && name.find("Async") == std::string_view::npos;
}

}  // namespace kscope::analysis
