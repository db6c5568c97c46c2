// What kscope diff (diff.h, diff_selections.h) compares of each run: its nsys kernels per
// family and per kernel, its NVTX stages (GPU time per instance with its spread, MFU), the
// bottleneck classes of its profiled kernels and the manifest fields that make runs comparable.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/options.h"
#include "analysis/stages/stage_steady.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis::atlas {

// One kernel's launch durations in a run (nsys's kernel summary), ns: how much they vary.
struct LaunchSpread {
  double median = 0;
  int64_t min = 0, max = 0;
};

// Launches and GPU time of a family or a kernel in a run (nsys's kernel summary).
struct KernelSum {
  std::string family, library;
  int64_t launches = 0, ns = 0;
  std::optional<LaunchSpread> spread;  // a kernel's
};
struct RunKernels {
  std::map<std::string, KernelSum> families, kernels;  // by family; by kernel name as nsys gives it
  int64_t launches = 0, ns = 0;
};
// An error when the run has no nsys kernels. `rank`: that rank's kernels alone
// (analysis/timeline/rank_selection.h); an error when the run has no such rank.
Result<RunKernels> LoadRunKernels(store::Store& store, int64_t run, std::optional<int64_t> rank = std::nullopt);

// The manifest fields that tell whether runs compare, in a fixed order: gpu, driver, cuda,
// nsys_export, nsys_tool, ncu, dtype, batch, tokens; then, from `capture` (the manifest.json
// that kscope profile wrote for the run, Store::RunCapture; empty for an imported export):
// sm_max_clock_mhz and mem_clock_mhz (the GPU's), ncu_clock_control, torch (PyTorch's
// version). Each with the run's value, if it has one.
using ComparedValues = std::vector<std::pair<std::string, std::optional<std::string>>>;
ComparedValues ComparedFields(const store::Manifest& m, const std::string& capture);

// A run's ComparedFields, read from the store.
Result<ComparedValues> LoadComparedFields(store::Store& store, int64_t run);

// One NVTX stage of a run (PyTorch's operator ranges and libraries' own ranges left out).
struct StageFacts {
  int64_t instances = 0, steady = 0;  // steady: after stages.warmup
  InstanceSpread gpu;                 // GPU time launched inside each instance (all instances)
  double median_gpu_ns = 0;           // the steady instances' median GPU time
  int64_t kernel_ns = 0;              // kernel time over all instances
  std::optional<double> mfu_pct;      // as kscope report computes it (measured by ncu, else modelled)
  std::string mfu_source;             // "ncu" or "model"
};

// By stage name ("domain:text", ":decode" in the default domain).
// `rank`: the stages as that rank ran them (its own instances, MFU against one GPU's peak).
Result<std::map<std::string, StageFacts>> LoadStageFacts(store::Store& store, int64_t run,
                                                         const AnalysisOptions& config,
                                                         std::optional<int64_t> rank = std::nullopt);

// The bottleneck classes of a run's profiled launches, per family and per kernel (ncu's name);
// launches without the metrics a class needs (class unknown) are left out.
struct ClassMix {
  std::string family, library;
  std::map<std::string, int64_t> launches;  // class name -> launches
  [[nodiscard]] std::string Main() const;   // the class with most launches (ties: by name)
  [[nodiscard]] int64_t Total() const;
};
struct RunClasses {
  std::map<std::string, ClassMix> families, kernels;
};
Result<RunClasses> LoadRunClasses(store::Store& store, int64_t run, const ClassifyThresholds& thresholds);

// A family (or kernel) profiled in both A and B whose main bottleneck class (that of most of
// its launches) differs.
struct ClassChangeRow {
  std::string key, family, library;
  ClassMix a, b;
};
// By key.
std::vector<ClassChangeRow> CompareClasses(const std::map<std::string, ClassMix>& a,
                                           const std::map<std::string, ClassMix>& b);

// What a side of a diff had to compare: its NVTX stages (distinct names over its runs) and its
// families and kernels with a bottleneck class (ncu). The views say from it why a table of
// changes is empty (neither side has stages, one has no ncu classes, ...).
struct DiffSideFacts {
  int64_t stages = 0, profiled_families = 0, profiled_kernels = 0;
};

}  // namespace kscope::analysis::atlas
