// What limits a profiled kernel: its bottleneck class, the evidence that decided it, the
// metrics the verdict rests on, and advice tied to both. Thresholds come from the
// configuration (classify.*). Any capture that has an SM throughput and one memory throughput
// can be classified: ncu's SpeedOfLight section, or the portable list of SM and DRAM
// throughput, L1 and L2 hit rates, stall percentages and duration.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/kernels/ncu_launches.h"

namespace kscope::analysis {

// kMemory: memory-bound with DRAM near its peak; kOnChip: memory-bound with DRAM not (L1,
// shared memory or L2 is the limit); kCache: DRAM-bound while most L2 lookups miss; kMixed:
// SM and memory both near their peaks.
enum class Bottleneck { kCompute, kMemory, kOnChip, kCache, kMixed, kLatency, kLaunch, kUnknown };
std::string_view BottleneckName(Bottleneck b);  // "compute", "memory (DRAM)", "cache inefficiency", ...

struct ClassifyThresholds {
  double busy_pct = 60;           // a unit above this share of its peak is the limiter
  double launch_us = 5;           // kernels shorter than this ...
  double launch_waves = 1;        // ... with fewer waves than this are launch-bound
  double low_occupancy_pct = 25;  // achieved occupancy below this is called low
  double low_l2_hit_pct = 25;     // a DRAM-bound kernel with an L2 hit rate below this: cache inefficiency
};

// ncu measures stalls per reason in two forms. WarpStateStats's
// smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio: warps waiting for the
// reason per issue cycle, which over all reasons adds up to ncu's "Warp Cycles Per Issued
// Instruction" (cycles/issue). Or smsp__warp_issue_stalled_<reason>_per_warp_active.pct: the
// share of active warps waiting for the reason each cycle (percent). Within one form, each
// reason's share of the measured total is the same either way.
enum class StallForm { kPerIssue, kPctOfActiveWarps };

struct Stall {
  std::string reason;  // e.g. "long_scoreboard"
  double value = 0;    // in the evidence's stall_form
  double share = 0;    // share of the measured reasons' total, percent
};

struct Evidence {
  std::optional<double> duration_ns, sm_pct, memory_pct, dram_pct, l1_pct, l2_pct, l1_hit_pct, l2_hit_pct;
  std::optional<double> achieved_occupancy_pct, theoretical_occupancy_pct, waves, grid_blocks, sm_count;
  std::string occupancy_limiter;  // "registers", "shared memory", "warps", "blocks", "barriers"
  std::vector<Stall> stalls;      // every measured reason, largest first (the breakdown)
  std::vector<Stall> top_stalls;  // its first three
  StallForm stall_form = StallForm::kPerIssue;
  std::optional<double> stall_total;  // the sum over every measured reason, in stall_form
  int stall_reasons = 0;              // how many reasons were measured
  std::string memory_metric;          // the metric memory_pct comes from
  std::string dram_metric;            // the metric dram_pct comes from
};

// "4.80 cycles/issue" or "12.3% of active warps".
std::string StallValueText(StallForm form, double value);

Evidence GatherEvidence(const NcuLaunch& launch);  // bottleneck_evidence.cc

struct Diagnosis {
  Bottleneck bottleneck = Bottleneck::kUnknown;
  std::string why;  // the evidence that decided the class, in one sentence
  Evidence evidence;
  std::vector<std::string> basis;  // the metrics the class rests on
  std::vector<std::string> advice;
  std::vector<std::string> missing;  // metrics the class needs that were not collected
};

Diagnosis Diagnose(const NcuLaunch& launch, const ClassifyThresholds& t);

// The figures the class rests on (a part of Evidence): what a profiled launch's stored
// figures (ncu_launch_figures, analysis/kernels/launch_figures.h) keep so that the class can be
// decided again under other thresholds without the launch's metrics.
struct ClassFigures {
  std::optional<double> duration_ns, sm_pct, memory_pct, dram_pct, l2_hit_pct, waves;
  friend bool operator==(const ClassFigures&, const ClassFigures&) = default;
};
ClassFigures ClassFiguresOf(const Evidence& e);

// The class alone, as Diagnose decides it (kUnknown without SM and memory throughput).
Bottleneck Classify(const ClassFigures& f, const ClassifyThresholds& t);

}  // namespace kscope::analysis
