#include "analysis/iterations/sequence_repeats.h"

namespace kscope::analysis {

SequenceHash::SequenceHash(const std::vector<int64_t>& symbols)
    : prefix_(symbols.size() + 1), power_(symbols.size() + 1) {
  constexpr uint64_t kBase = 0x100000001b3ULL;
  power_[0] = 1;
  for (size_t i = 0; i < symbols.size(); ++i) {
    const uint64_t mixed = static_cast<uint64_t>(symbols[i]) * 0x9e3779b97f4a7c15ULL + 1;
    prefix_[i + 1] = prefix_[i] * kBase + mixed;
    power_[i + 1] = power_[i] * kBase;
  }
}

bool Repeats(const SequenceHash& h, size_t at, size_t period, uint64_t ref) {
  return at + period <= h.size() && h.Of(at, at + period) == ref;
}

Run LongestRun(const SequenceHash& h, const std::vector<size_t>& anchors) {
  Run best;
  size_t j = 0;
  while (j + 1 < anchors.size()) {
    const size_t len = anchors[j + 1] - anchors[j];
    const uint64_t ref = h.Of(anchors[j], anchors[j + 1]);
    size_t k = j + 1;
    while (k + 1 < anchors.size() && anchors[k + 1] - anchors[k] == len && h.Of(anchors[k], anchors[k + 1]) == ref) ++k;
    size_t repeats = k - j;
    if (Repeats(h, anchors[k], len, ref)) ++repeats;  // the stretch after the last anchor
    if (repeats * len > best.covered()) best = {anchors[j], len, repeats};
    j = k;
  }
  return best;
}

Run Extend(const SequenceHash& h, size_t first, size_t period) {
  if (period == 0 || first + period > h.size()) return {};
  const uint64_t ref = h.Of(first, first + period);
  while (first >= period && h.Of(first - period, first) == ref) first -= period;
  size_t repeats = 1;
  while (Repeats(h, first + repeats * period, period, ref)) ++repeats;
  return {first, period, repeats};
}

}  // namespace kscope::analysis
