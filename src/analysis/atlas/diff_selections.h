// kscope diff of two selections of runs (each chosen as kscope atlas chooses its runs: run ids,
// tags, label, model, GPU): what changed from selection A to selection B, per kernel family,
// kernel and NVTX stage, each figure per run (the median over the selection's runs, with the
// least and most of them, so that the noise between runs is visible) and each selection's size;
// the bottleneck classes of the profiled launches of all of a selection's runs together; first,
// whether the selections compare (their manifests), and whether each selection's own runs do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/atlas/atlas.h"
#include "analysis/atlas/diff.h"

namespace kscope::analysis::atlas {

// One figure over a selection's runs (one value per run): median (the mean of the two middle
// values for an even count), least and most.
struct RunsSpread {
  double median = 0, min = 0, max = 0;
  friend bool operator==(const RunsSpread&, const RunsSpread&) = default;
};
RunsSpread SpreadOverRuns(std::vector<double> values);

// A family or kernel in both selections. Its launches and GPU time per run count 0 in a run of
// the selection that does not launch it.
struct SelectionDiffRow {
  std::string key;  // the family, or the kernel's name as nsys gives it
  std::string family, library;
  Change change = Change::kChanged;
  int64_t runs_a = 0, runs_b = 0;  // the runs of each selection that launch it
  RunsSpread launches_a, launches_b, ns_a, ns_b;
  // B's median GPU time per run against A's, percent; 0 for a row that appeared or vanished.
  [[nodiscard]] double GpuTimePct() const;
};

// A stage in the runs of a selection that have it, each figure over those runs.
struct SelectionStageFacts {
  int64_t runs = 0;
  RunsSpread instances;
  RunsSpread median_gpu_ns;       // each run's median GPU time per steady instance
  RunsSpread kernel_ns;           // each run's kernel time over all its instances
  std::optional<RunsSpread> mfu;  // over the runs that have an MFU
  std::string mfu_source;         // "ncu", "model", or "model+ncu" when the runs differ
  friend bool operator==(const SelectionStageFacts&, const SelectionStageFacts&) = default;
};

struct SelectionStageRow {
  std::string stage;
  Change change = Change::kChanged;
  std::optional<SelectionStageFacts> a, b;
  // The change of the median GPU time per steady instance (medians over the runs), percent.
  [[nodiscard]] double GpuTimePct() const;
  // B's median MFU minus A's, percentage points, where both selections have it.
  [[nodiscard]] std::optional<double> MfuDeltaPts() const;
};

// A manifest field on which the selections disagree: the distinct values of each (runs that
// do not know the field left out); both selections know it.
struct SelectionDifference {
  std::string field;
  std::vector<std::string> a, b;
};

// A manifest field (or the model) on which one selection's own runs disagree.
struct SideDifference {
  std::string side;  // "A" or "B"
  std::string field;
  std::vector<std::string> values;  // distinct, sorted
};

struct SelectionDiff {
  std::string a_text, b_text;                     // the selections as written, e.g. "--a-tag variant=base"
  std::vector<int64_t> runs_a, runs_b;            // by id
  std::vector<SelectionDifference> differences;   // empty: the selections compare
  std::vector<SideDifference> side_differences;   // A's then B's
  RunsSpread launches_a, launches_b, ns_a, ns_b;  // whole runs, per run
  // Rows whose runs, launches or GPU time differ, by the size of the change of the median GPU
  // time per run, largest first, then key; a selection diffed with itself has none.
  std::vector<SelectionDiffRow> families, kernels;
  std::vector<SelectionStageRow> stages;                       // by the size of the change per instance
  std::vector<ClassChangeRow> family_classes, kernel_classes;  // by key
  DiffSideFacts facts_a, facts_b;                              // what each selection had to compare
  [[nodiscard]] double GpuTimePct() const;                     // of the median GPU time per run
  [[nodiscard]] double LaunchesPct() const;
};

// How a selection is written on kscope diff's command line, options prefixed by `prefix`
// ("--a-"): "--a-run 3 --a-tag variant=base".
std::string SelectionText(const RunFilter& filter, const std::string& prefix);

// `config` as for DiffRuns. A selection that matches no run, names a run not in the database
// or a tag key no run has, or holds a run without nsys kernels, is an error.
Result<SelectionDiff> DiffSelections(store::Store& store, const RunFilter& a, const RunFilter& b,
                                     const AnalysisOptions& config);

// The metrics of DiffRuns' thresholds, on the figures per run: gpu_time_pct and launches_pct
// (medians), family_gpu_time_pct and stage_gpu_time_pct (the largest change of a median),
// appeared, vanished, class_changes.
std::pair<double, bool> Check(const SelectionDiff& diff, const Threshold& t);

}  // namespace kscope::analysis::atlas
