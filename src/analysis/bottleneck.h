// What limits a profiled kernel: its bottleneck class, the evidence that decided it, and
// advice tied to both. Thresholds come from the configuration (classify.*).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/ncu_launches.h"

namespace kscope::analysis {

enum class Bottleneck { kCompute, kMemory, kCache, kLatency, kLaunch, kUnknown };
std::string_view BottleneckName(Bottleneck b);  // "compute", "memory (DRAM)", "cache (L1/L2)", ...

struct ClassifyThresholds {
  double busy_pct = 60;           // a unit above this share of its peak is the limiter
  double launch_us = 5;           // kernels shorter than this ...
  double launch_waves = 1;        // ... with fewer waves than this are launch-bound
  double low_occupancy_pct = 25;  // achieved occupancy below this is called low
};

struct Stall {
  std::string reason;  // e.g. "long_scoreboard"
  double cycles = 0;   // warp cycles per issued instruction spent in it
  double share = 0;    // share of all stall cycles, percent
};

struct Evidence {
  std::optional<double> duration_ns, sm_pct, memory_pct, dram_pct, l1_pct, l2_pct, l1_hit_pct, l2_hit_pct;
  std::optional<double> achieved_occupancy_pct, theoretical_occupancy_pct, waves, grid_blocks, sm_count;
  std::string occupancy_limiter;  // "registers", "shared memory", "warps", "blocks", "barriers"
  std::vector<Stall> top_stalls;  // largest first, at most three
};

struct Diagnosis {
  Bottleneck bottleneck = Bottleneck::kUnknown;
  std::string why;  // the evidence that decided the class, in one sentence
  Evidence evidence;
  std::vector<std::string> advice;
  std::vector<std::string> missing;  // metrics the class needs that were not collected
};

Diagnosis Diagnose(const NcuLaunch& launch, const ClassifyThresholds& t);

}  // namespace kscope::analysis
