// The one merge of kscope diff, for runs and selections alike: what happened to each key (a
// family, a kernel, a stage) from side A to side B. Every key of A in A's order, with B's facts
// where B has it (changed, or the same: the caller drops unchanged rows), then the keys only B
// has (appeared). The callers sort the rows they keep by the size of the change.
#pragma once

#include <map>
#include <string>

#include "analysis/atlas/diff.h"

namespace kscope::analysis::atlas {

// `fn(key, x, y, change)`: x is A's facts (null when the key appeared), y B's (null when it
// vanished).
template <typename Facts, typename Fn>
void MergeByKey(const std::map<std::string, Facts>& a, const std::map<std::string, Facts>& b, Fn&& fn) {
  for (const auto& [key, x] : a) {
    auto it = b.find(key);
    if (it == b.end()) {
      fn(key, &x, static_cast<const Facts*>(nullptr), Change::kVanished);
    } else {
      fn(key, &x, &it->second, Change::kChanged);
    }
  }
  for (const auto& [key, y] : b) {
    if (!a.contains(key)) fn(key, static_cast<const Facts*>(nullptr), &y, Change::kAppeared);
  }
}

}  // namespace kscope::analysis::atlas
