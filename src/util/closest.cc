#include "util/closest.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>

namespace kscope {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

namespace {

std::string Lower(std::string_view v) {
  std::string out(v);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::vector<std::string> Closest(std::string_view word, const std::vector<std::string>& candidates, size_t n) {
  std::vector<std::pair<size_t, size_t>> scored;  // (distance, index)
  scored.reserve(candidates.size());
  const std::string lower_word = Lower(word);
  for (size_t i = 0; i < candidates.size(); ++i) {
    const bool contains = !word.empty() && Lower(candidates[i]).find(lower_word) != std::string::npos;
    scored.emplace_back(contains ? 0 : EditDistance(word, candidates[i]), i);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (size_t k = 0; k < scored.size() && out.size() < n; ++k) out.push_back(candidates[scored[k].second]);
  return out;
}

}  // namespace kscope
