// FLOP and bandwidth utilization of a stage, over its steady instances (analysis/stages/stage_steady.h).
//
// Measured: ncu's FLOP counters (analysis/kernels/launch_flops.h) on the profiled launches of each
// launch configuration (kernel, grid, block), their mean applied to every launch of that
// configuration in the stage's steady instances; the share of their kernel time so covered is
// stated, and the rest counts 0. Modelled: the model FLOPs of analysis/stages/model_flops.h, when the
// configuration describes the model. Each count is divided by the steady instances' wall time
// (start to the end of the last GPU work they launched) and by one peak: the dense (no
// sparsity) datasheet figure of the precision (the model's dtype, else the precision that did
// most of the work), whose clock is named; ncu's own peak at the clock it profiled at is shown
// beside it. MBU: DRAM bytes (ncu's, else the model's weights read once per forward pass) over
// the wall time and the bandwidth.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernels/ncu_launches.h"
#include "analysis/options.h"
#include "analysis/stages/model_flops.h"
#include "analysis/stages/stage_steady.h"
#include "analysis/stages/stages.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// A launch configuration in the timeline run: kernel name (string id), grid and block.
using ConfigKey = std::pair<int64_t, std::array<int64_t, 6>>;

// What the profiled launches of one launch configuration did, per ns of their own duration
// in the timeline run: a configuration's launches need not do equal work (a persistent GEMM
// kernel runs every shape with one grid, one CTA per SM), so each launch is credited in
// proportion to its duration; launches of one shape take equal times, and get equal work.
struct ProfiledConfig {
  int64_t launches = 0;                        // profiled launches of it
  std::map<std::string, double> flops_per_ns;  // per precision
  bool has_flops = false;                      // its launches carry the FLOP counters
  std::optional<double> dram_bytes_per_ns;
};

struct ProfiledWork {
  std::map<ConfigKey, ProfiledConfig> configs;
  std::map<std::string, double> peak_flops;  // per precision: ncu's dense peak, median over launches
  std::optional<double> peak_bandwidth;      // DRAM bytes/s, median
  std::optional<double> sm_clock_hz;         // median clock ncu measured (the peaks' clock)
  bool has_flops = false;                    // some launch had the FLOP counters
};

// Per timeline kernel row: its configuration (name, grid, block) and duration.
struct KernelRowInfo {
  ConfigKey config;
  int64_t ns = 0;
  bool communication = false;  // waits on a peer (names/communication.h): no model FLOPs to count
};
// `events`: the run's events when loaded already (their start, end and name are used).
Result<std::vector<KernelRowInfo>> LoadKernelRows(store::Store& store, int64_t timeline_run,
                                                  const NsysEvents* events = nullptr);

// The work of the profiled `launches` (an ncu run's, LoadNcuLaunches) linked to kernels of
// `timeline_run` (rows: its kernel rows, LoadKernelRows), by configuration.
ProfiledWork GatherProfiledWork(const std::vector<NcuLaunch>& launches, int64_t timeline_run,
                                const std::vector<KernelRowInfo>& rows);

// One way of counting a stage's FLOPs, and the utilization it gives.
struct MfuLine {
  std::string name;     // 'measured (ncu)', '6N', '6N + attention', ...
  std::string formula;  // how it was counted
  double flops = 0;     // per steady instance
  std::optional<double> flops_per_s{}, mfu_pct{};
};

struct StagePeak {
  std::string precision;  // 'Tensor BF16', 'FP32', ...
  double flops_per_s = 0;
  std::string source;                // 'datasheet GPU' or 'ncu'
  std::optional<double> clock_hz{};  // the SM clock the figure assumes
};

struct StageMfu {
  int64_t instances = 0;  // steady instances the figures cover
  double wall_ns = 0;     // their mean wall time
  double kernel_ns = 0;   // their mean kernel time
  // Measured (ncu), per steady instance:
  std::optional<double> measured_flops;
  std::map<std::string, double> measured_by_precision;
  double coverage_pct = 0;  // share of the steady instances' compute kernel time with FLOP counts
  int64_t measured_launches = 0, extrapolated_launches = 0;
  std::optional<StagePeak> peak;         // what MFU divides by: dense datasheet, else ncu's
  std::optional<StagePeak> ncu_peak;     // ncu's dense peak at the clock it profiled at
  std::vector<MfuLine> lines;            // measured first, then the model's counts
  std::optional<double> mfu_pct;         // the measured line's (else the first model line's)
  std::optional<double> kernel_mfu_pct;  // the same FLOPs over kernel time instead of wall time
  std::string mfu_source;                // 'ncu', 'model', or 'not measured' (ncu's FLOPs cover too little)
  std::string mfu_line;                  // the name of the line mfu_pct is
  // Bandwidth, per steady instance:
  std::optional<double> bytes, achieved_bytes_per_s, peak_bytes_per_s, mbu_pct;
  std::string bytes_source;  // "ncu" or "model"
  std::vector<std::string> notes;
};

StageMfu ComputeStageMfu(const Stage& stage, const StageSteady& steady, const std::vector<KernelRowInfo>& kernel_rows,
                         const ProfiledWork& work, const std::optional<ModelShape>& model_shape,
                         const ModelOptions& model, const std::string& gpu, const std::string& dtype);

}  // namespace kscope::analysis
