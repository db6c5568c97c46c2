// The atlas: kernels across many runs and models. Which kernel families (or kernels) the
// selected runs use, how much of each model's GPU time they take (nsys), and how they perform
// where ncu profiled them, each figure with the number of launches it rests on.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernels/bottleneck.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis::atlas {

// Which runs the atlas covers: every run when all fields are empty; otherwise runs matching
// every field given (any of `run_ids`, every tag).
struct RunFilter {
  std::vector<int64_t> run_ids;
  std::map<std::string, std::string> tags;
  std::optional<std::string> label, model, gpu;
};

enum class Grouping { kFamily, kKernel };

struct AtlasRun {
  int64_t id = 0;
  std::string model;  // the manifest's model, else its label, else "run N"
  int64_t kernel_ns = 0;
  int64_t launches = 0;
  int64_t profiled_launches = 0;
};

// One family (or kernel) across the selected runs, from nsys's kernel summaries.
struct PopularityRow {
  std::string key;  // the family, or the kernel's name as nsys gives it
  std::string family, library;
  int64_t models = 0, runs = 0, launches = 0, gpu_time_ns = 0;
  std::map<std::string, double> share_pct;  // per model that uses it: % of the model's GPU time
};

// A figure over the profiled launches that have it.
struct Spread {
  int64_t launches = 0;  // how many launches the figure rests on; 0: none had it
  double min = 0, p25 = 0, median = 0, p75 = 0, max = 0;
};

// One family (or kernel) across the selected runs' ncu results. The figures are those of
// `kscope kernels` (analysis::Diagnose's evidence), per profiled launch.
struct PerformanceRow {
  std::string key;  // the family, or the kernel's name as nsys gives it (else as ncu does)
  std::string family, library;
  int64_t models = 0, runs = 0, launches = 0;  // profiled launches
  Spread sm_pct, dram_pct, l1_hit_pct, l2_hit_pct, achieved_occupancy_pct, theoretical_occupancy_pct;
  std::map<std::string, int64_t> classes;     // bottleneck class name -> launches
  std::map<std::string, int64_t> top_stalls;  // a launch's largest stall reason -> launches
};

struct Atlas {
  Grouping grouping = Grouping::kFamily;
  std::vector<AtlasRun> runs;               // by id
  std::vector<std::string> models;          // sorted
  std::vector<PopularityRow> popularity;    // by GPU time, largest first, then key
  std::vector<PerformanceRow> performance;  // by profiled launches, most first, then key
};

Result<std::vector<AtlasRun>> SelectRuns(store::Store& store, const RunFilter& filter);

// Quantiles by linear interpolation between the sorted values (median: the middle value or
// the mean of the two middle ones).
Spread SpreadOf(std::vector<double> values);

Result<Atlas> BuildAtlas(store::Store& store, const RunFilter& filter, Grouping grouping,
                         const ClassifyThresholds& thresholds);

}  // namespace kscope::analysis::atlas
