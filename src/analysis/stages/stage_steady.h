// A stage's steady state: its instances one by one (the first often holds one-time work:
// CUDA context and cuBLAS set-up, torch.compile, autotuning, allocator growth), the spread of
// their times, and the instances after the warm-up, which MFU and the verdicts use.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/stages/stages.h"
#include "analysis/timeline/intervals.h"

namespace kscope::analysis {

// First, median, minimum and maximum over a stage's instances (ns); the median as nsys
// computes it (the mean of the two middle values for an even count), so that the range
// times' median is nvtx_sum's Med.
struct InstanceSpread {
  int64_t first = 0, min = 0, max = 0;
  double median = 0;
};

struct StageSteady {
  // Instances left out at the start: each process's (rank's) first `warmup`, or none of a
  // process's when that leaves it none; in a job of several ranks each rank warms up.
  int64_t warmup = 0;
  int64_t steady = 0;    // instances counted: instances - warmup
  int64_t ranks = 0;     // processes whose instances these are (1 for a run of one process)
  InstanceSpread range;  // CPU range durations of all instances
  InstanceSpread gpu;    // GPU time (kernels, copies, sets) launched inside each instance
  InstanceSpread wall;   // each instance's start to the end of the last work it launched
  // The steady instances together:
  int64_t wall_ns = 0, gpu_ns = 0, kernel_ns = 0, ops = 0;
  double median_wall_ns = 0, median_gpu_ns = 0;
  std::vector<TimeWindow> windows;  // their windows
  std::vector<char> counted;        // per instance: 1 when steady
};

// `warmup`: instances to leave out at the start (config stages.warmup).
StageSteady SteadyState(const Stage& stage, int64_t warmup);

}  // namespace kscope::analysis
