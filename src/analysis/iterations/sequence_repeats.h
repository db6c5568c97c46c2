// Repeats in a run's kernel sequence (analysis/iterations/iterations.h): hashes of its
// stretches, and the runs of equal consecutive stretches that make a loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kscope::analysis {

// Polynomial hashes of every stretch of a sequence of symbols (kernel names), from prefix hashes.
class SequenceHash {
 public:
  explicit SequenceHash(const std::vector<int64_t>& symbols);
  // The stretch [a, b).
  [[nodiscard]] uint64_t Of(size_t a, size_t b) const { return prefix_[b] - prefix_[a] * power_[b - a]; }
  [[nodiscard]] size_t size() const { return prefix_.size() - 1; }

 private:
  std::vector<uint64_t> prefix_, power_;
};

// A run of `repeats` equal consecutive stretches of `period` symbols from `first`.
struct Run {
  size_t first = 0;   // position where the run starts
  size_t period = 0;  // kernels per repeat
  size_t repeats = 0;
  [[nodiscard]] size_t covered() const { return period * repeats; }
};

// Whether the stretch of `period` symbols at `at` has the hash `ref`.
bool Repeats(const SequenceHash& h, size_t at, size_t period, uint64_t ref);

// The longest run of equal consecutive stretches between `anchors` (positions, ascending).
Run LongestRun(const SequenceHash& h, const std::vector<size_t>& anchors);

// The run grown backwards and forwards from the stretch of `period` at `first`, as far as the
// stretches repeat it.
Run Extend(const SequenceHash& h, size_t first, size_t period);

}  // namespace kscope::analysis
