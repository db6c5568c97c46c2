// The atlas: kernels across many runs and models. Which kernel families (or kernels) the
// selected runs use, how much of each model's GPU time they take (nsys), and how they perform
// where ncu profiled them, each figure with the number of launches it rests on.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/atlas/thresholds.h"
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
  // One rank of each run (a multi-GPU job's process: analysis/timeline/rank_selection.h): its
  // kernels' time, and the launches ncu profiled on its GPU; every run must have it.
  std::optional<int64_t> rank;
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

// Launch correlates: what a profiled launch's performance is measured by. kRoof: its % of
// roofline (the precision nearest its peak, as `kscope kernels` shows it), from the roofline's
// metrics; kSm: SM throughput, % of peak, for families with no launch that has a roofline.
enum class Figure { kRoof, kSm };
std::string_view FigureName(Figure f);  // "% of roof", "SM %"

// A launch parameter the correlates bin launches by.
// kShape: the launching PyTorch op and its input shapes (ncu_launch_figures.shape), where the
// nsys capture recorded them; its bins are the shapes with most launches, most first.
enum class Parameter { kWaves, kGridBlocks, kBlockThreads, kRegisters, kSharedMemory, kShape };
std::string_view ParameterName(Parameter p);  // "waves per SM", "grid blocks", ..., "shape"

struct CorrelateBin {
  Parameter parameter = Parameter::kWaves;
  std::string bin;   // "[1, 2)", "64-255", "256", "33-64", "16-64 KiB", "aten::mm [[2048, 1024], [1024, 3584]]"
  double lower = 0;  // the bin's lower edge, for order; a shape's rank (0: most launches)
  Spread figure;     // over the bin's launches that have the family's figure
};

// A launch configuration (kernel, grid, block, registers, shared memory, shape) of a family.
struct LaunchConfig {
  std::string kernel;  // nsys's spelling where a selected run's nsys data has it, else ncu's
  std::array<int64_t, 3> grid{}, block{};
  std::optional<double> waves, registers, shared_bytes;
  std::string shape;                // the launching PyTorch op and its input shapes; "" when unknown
  std::vector<std::string> models;  // sorted
  int64_t launches = 0;
  double figure = 0;  // the median over its launches
};

struct CorrelateRow {
  std::string key, family, library;
  Figure figure = Figure::kRoof;
  int64_t launches = 0;                // profiled launches of the family with the figure
  double median = 0;                   // the family's median figure
  std::vector<CorrelateBin> bins;      // by parameter, then lower edge; launches without the parameter left out
  std::vector<LaunchConfig> outliers;  // below atlas.outlier_fraction of the median, lowest first
};

// A systemic signal: a pattern that holds for whole families, possibly across models.
enum class SignalState { kFound, kNotFound, kNotEnoughData };
std::string_view SignalStateName(SignalState s);  // "found", "not found", "not enough data"

struct SignalFamily {
  std::string family, library;
  int64_t launches = 0;             // launches with the metrics (nsys launches for the launch-bound signal)
  int64_t matching = 0;             // of which show the pattern
  std::vector<std::string> models;  // sorted
  int64_t gpu_time_ns = 0;          // the family's nsys GPU time over the selected runs
  double detail = 0;                // the pattern's figure, named by the signal's detail_name
  // launch_bound: the median waves per SM of the family's profiled launches (how small its
  // grids are), where ncu profiled it; evidence shown, not part of the rule.
  std::optional<double> median_waves;
};

struct Signal {
  std::string id;     // "memory_low_l2_hit", "matmul_low_tensor", "register_limited_occupancy", "launch_bound"
  std::string title;  // one line
  std::vector<std::string> metrics;  // what it rests on
  std::string rule;                  // the thresholds, as applied
  std::string detail_name;           // what SignalFamily::detail is
  SignalState state = SignalState::kNotEnoughData;
  int64_t families_with_data = 0;
  std::vector<SignalFamily> families;  // those that show it, by GPU time, largest first
  std::vector<std::string> models;     // of those families, sorted
  double gpu_time_pct = 0;             // their share of the selected runs' GPU time (nsys)
  std::string advice;
};

// One collective kind (analysis/names/communication.h) of one model, over the selected runs that
// launch communication kernels (nsys's kernels, each rank a process).
struct CommunicationRow {
  std::string model;
  std::string kind;   // CollectiveKindName: "AllReduce", "AllGather", "SendRecv", ... "Other"
  int64_t runs = 0;   // the model's runs that launch it
  int64_t ranks = 0;  // the ranks (processes) that launch it, summed over those runs
  int64_t launches = 0, gpu_time_ns = 0;
  double share_pct = 0;  // of the model's kernel time (all its selected runs)
  // What no compute kernel of the same rank hides: each launch's duration less its overlap with
  // the union of the rank's compute (non-communication) kernels, summed.
  int64_t exposed_ns = 0;
  double exposed_pct = 0;  // of gpu_time_ns
};

struct Atlas {
  Grouping grouping = Grouping::kFamily;
  std::optional<int64_t> rank;                  // RunFilter::rank
  std::vector<AtlasRun> runs;                   // by id
  std::vector<std::string> models;              // sorted
  std::vector<PopularityRow> popularity;        // by GPU time, largest first, then key
  std::vector<PerformanceRow> performance;      // by profiled launches, most first, then key
  std::vector<CorrelateRow> correlates;         // by launches with the figure, most first, then key
  std::vector<Signal> signals;                  // in a fixed order, one per kind
  std::vector<CommunicationRow> communication;  // by model, then GPU time, largest first, then kind
};

Result<std::vector<AtlasRun>> SelectRuns(store::Store& store, const RunFilter& filter);

// Quantiles by linear interpolation between the sorted values (median: the middle value or
// the mean of the two middle ones).
Spread SpreadOf(std::vector<double> values);

struct AtlasConfig {
  ClassifyThresholds classify;
  AtlasThresholds atlas;
};

Result<Atlas> BuildAtlas(store::Store& store, const RunFilter& filter, Grouping grouping, const AtlasConfig& config);

}  // namespace kscope::analysis::atlas
