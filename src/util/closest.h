// The candidates nearest to a word, for "did you mean" in error messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kscope {

// Edit distance (insertions, deletions, substitutions), case-sensitive.
size_t EditDistance(std::string_view a, std::string_view b);

// Up to `n` candidates ordered by edit distance to `word` (ties: candidate order); a
// candidate containing `word` (in any letter case) counts as nearest.
std::vector<std::string> Closest(std::string_view word, const std::vector<std::string>& candidates, size_t n);

}  // namespace kscope
