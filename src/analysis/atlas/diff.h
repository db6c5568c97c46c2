// kscope diff A B: what changed between two runs, per kernel family and per kernel (nsys's
// kernel summaries): GPU time and launches, kernels that appeared or vanished; per NVTX stage:
// GPU time per instance with the instance counts and spread, and MFU; per family and kernel the
// bottleneck class of its profiled launches (ncu); first, whether the two runs are comparable
// at all (GPU, driver, tool versions, dtype, batch, tokens from their manifests); and
// thresholds on the change for CI's exit code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/atlas/diff_runs_detail.h"
#include "analysis/options.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis::atlas {

// A manifest field the two runs disagree on (ComparedFields: "gpu", "driver", ..., "torch"); a
// field only one run knows is no disagreement.
struct ManifestDifference {
  std::string field, a, b;
};

enum class Change { kChanged, kAppeared, kVanished };  // appeared: only in B; vanished: only in A

struct DiffRow {
  std::string key;  // the family, or the kernel's name as nsys gives it
  std::string family, library;
  int64_t launches_a = 0, launches_b = 0, ns_a = 0, ns_b = 0;
  Change change = Change::kChanged;
  std::optional<LaunchSpread> spread_a, spread_b;  // kernel rows, in the runs that launch it
  // B's GPU time against A's, in percent; 0 for a row that appeared or vanished.
  [[nodiscard]] double GpuTimePct() const;
};

// One NVTX stage in A and B (either may lack it). Its GPU time is compared per steady
// instance (the median), so that runs with different instance counts compare.
struct StageDiffRow {
  std::string stage;
  Change change = Change::kChanged;
  std::optional<StageFacts> a, b;
  // B's median steady GPU time per instance against A's, percent; 0 unless both have the stage.
  [[nodiscard]] double GpuTimePct() const;
  // B's MFU minus A's, percentage points, where both runs have it.
  [[nodiscard]] std::optional<double> MfuDeltaPts() const;
};

struct RunDiff {
  int64_t a = 0, b = 0;
  std::vector<ManifestDifference> differences;  // empty: comparable
  int64_t launches_a = 0, launches_b = 0, ns_a = 0, ns_b = 0;
  // Only rows whose launches or GPU time differ: a run diffed with itself has none. By the
  // size of the change in GPU time, largest first, then key.
  std::vector<DiffRow> families, kernels;
  // Stages whose instances, GPU time or MFU differ, by the size of the change per instance.
  std::vector<StageDiffRow> stages;
  std::vector<ClassChangeRow> family_classes, kernel_classes;  // by key
  DiffSideFacts facts_a, facts_b;                              // what each run had to compare
  [[nodiscard]] double GpuTimePct() const;                     // the whole run's
  [[nodiscard]] double LaunchesPct() const;
};

// The fields (ComparedFields) that both runs know and disagree on.
std::vector<ManifestDifference> ManifestDifferences(const ComparedValues& a, const ComparedValues& b);

// `config`: stages.warmup, the model (modelled MFU), classify.* (classes).
// `rank`: one rank of each run (kscope diff --rank N): its kernels and its stages alone.
Result<RunDiff> DiffRuns(store::Store& store, int64_t a, int64_t b, const AnalysisOptions& config,
                         std::optional<int64_t> rank = std::nullopt);

// A threshold on a diff, written METRIC>N, METRIC>=N, METRIC<N or METRIC<=N. Metrics:
// gpu_time_pct and launches_pct (the whole run's change, percent), family_gpu_time_pct (the
// largest change of a family both runs have, percent), stage_gpu_time_pct (the largest change
// of a stage's GPU time per instance, percent), appeared and vanished (kernel counts),
// class_changes (families whose main class changed).
struct Threshold {
  std::string metric, op;
  double value = 0;
  std::string text;  // as written
};
Result<Threshold> ParseThreshold(const std::string& text);
// The metric's value on the diff, and whether it trips the threshold.
std::pair<double, bool> Check(const RunDiff& diff, const Threshold& t);
// Whether `value` trips the threshold.
bool Trips(const Threshold& t, double value);

}  // namespace kscope::analysis::atlas
