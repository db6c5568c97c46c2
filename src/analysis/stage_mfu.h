// Model FLOP and bandwidth utilization of a stage. FLOPs are measured by ncu (the tensor and
// FP instruction counts of its roofline sections, an FMA counting 2) on the profiled
// launches of each launch configuration, extrapolated to all the configuration's launches in
// the stage, with the coverage stated; or computed from the model (2 x matmul parameters x
// tokens, plus attention: 4 x layers x hidden x context x tokens). Achieved FLOP/s is FLOPs
// over the stage's projected GPU time; the peak is ncu's for the precision (at the clock ncu
// profiled at), else the datasheet's. MBU likewise from DRAM bytes and bandwidth. ncu's
// FLOPs are used when their launches cover at least half of the stage's kernel time, or
// when the model gives none; otherwise the model's.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stages.h"
#include "config/config.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// A launch configuration in the timeline run: kernel name (string id), grid and block.
using ConfigKey = std::pair<int64_t, std::array<int64_t, 6>>;

struct ProfiledConfig {
  int64_t launches = 0;                 // profiled launches of it
  std::map<std::string, double> flops;  // per precision, mean per launch
  std::optional<double> dram_bytes;     // mean per launch
};

struct ProfiledWork {
  std::map<ConfigKey, ProfiledConfig> configs;
  std::map<std::string, double> peak_flops;  // per precision: median over the profiled launches
  std::optional<double> peak_bandwidth;      // DRAM bytes/s, median
  std::optional<double> sm_clock_hz;         // median clock ncu measured (the peaks' clock)
  bool has_flops = false;                    // some launch had the roofline metrics
};

// Per timeline kernel row: its configuration (name, grid, block) and duration.
struct KernelRowInfo {
  ConfigKey config;
  int64_t ns = 0;
};
// `events`: the run's events when loaded already (their start, end and name are used).
Result<std::vector<KernelRowInfo>> LoadKernelRows(store::Store& store, int64_t timeline_run,
                                                  const NsysEvents* events = nullptr);

// The work of the profiled `launches` (an ncu run's, LoadNcuLaunches) linked to kernels of
// `timeline_run` (rows: its kernel rows, LoadKernelRows), by configuration.
ProfiledWork GatherProfiledWork(const std::vector<NcuLaunch>& launches, int64_t timeline_run,
                                const std::vector<KernelRowInfo>& rows);

struct StageMfu {
  std::optional<double> flops;  // the FLOPs the utilization uses
  std::string flops_source;     // "ncu", "analytic" or "" (none)
  std::optional<double> ncu_flops, analytic_flops;
  std::string precision;    // whose peak: the model dtype's, else the precision doing most work
  double coverage_pct = 0;  // share of the stage's kernel time with ncu FLOPs
  int64_t measured_launches = 0, extrapolated_launches = 0;
  std::optional<double> achieved_flops_per_s, peak_flops_per_s, mfu_pct, kernel_mfu_pct;
  std::string peak_source;  // "ncu" or "datasheet"
  std::optional<double> datasheet_peak_flops_per_s, datasheet_mfu_pct;
  std::optional<double> bytes, achieved_bytes_per_s, peak_bytes_per_s, mbu_pct;
  std::string bytes_source;  // "ncu" or "analytic"
  std::vector<std::string> notes;
};

StageMfu ComputeStageMfu(const Stage& stage, const std::vector<KernelRowInfo>& kernel_rows, const ProfiledWork& work,
                         const config::ModelConfig& model, const std::string& gpu, const std::string& dtype);

}  // namespace kscope::analysis
