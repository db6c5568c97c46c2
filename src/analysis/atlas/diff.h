// kscope diff A B: what changed between two runs, per kernel family and per kernel (nsys's
// kernel summaries): GPU time and launches, kernels that appeared or vanished; first, whether
// the two runs are comparable at all (GPU, driver, tool versions, dtype, batch, tokens from
// their manifests); and thresholds on the change for CI's exit code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis::atlas {

// A manifest field the two runs disagree on ("gpu", "driver", "cuda", "nsys_export",
// "nsys_tool", "ncu", "dtype", "batch", "tokens"); a field only one run knows is no
// disagreement.
struct ManifestDifference {
  std::string field, a, b;
};

enum class Change { kChanged, kAppeared, kVanished };  // appeared: only in B; vanished: only in A

struct DiffRow {
  std::string key;  // the family, or the kernel's name as nsys gives it
  std::string family, library;
  int64_t launches_a = 0, launches_b = 0, ns_a = 0, ns_b = 0;
  Change change = Change::kChanged;
  // B's GPU time against A's, in percent; 0 for a row that appeared or vanished.
  [[nodiscard]] double GpuTimePct() const;
};

struct RunDiff {
  int64_t a = 0, b = 0;
  std::vector<ManifestDifference> differences;  // empty: comparable
  int64_t launches_a = 0, launches_b = 0, ns_a = 0, ns_b = 0;
  // Only rows whose launches or GPU time differ: a run diffed with itself has none. By the
  // size of the change in GPU time, largest first, then key.
  std::vector<DiffRow> families, kernels;
  [[nodiscard]] double GpuTimePct() const;  // the whole run's
  [[nodiscard]] double LaunchesPct() const;
};

Result<RunDiff> DiffRuns(store::Store& store, int64_t a, int64_t b);

// A threshold on a diff, written METRIC>N, METRIC>=N, METRIC<N or METRIC<=N. Metrics:
// gpu_time_pct and launches_pct (the whole run's change, percent), family_gpu_time_pct (the
// largest change of a family both runs have, percent), appeared and vanished (kernel counts).
struct Threshold {
  std::string metric, op;
  double value = 0;
  std::string text;  // as written
};
Result<Threshold> ParseThreshold(const std::string& text);
// The metric's value on the diff, and whether it trips the threshold.
std::pair<double, bool> Check(const RunDiff& diff, const Threshold& t);

}  // namespace kscope::analysis::atlas
