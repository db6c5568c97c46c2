// The report's parts about a run's repeated iterations and what its time was for
// (report/run_report.h): the loop found without NVTX, the run's phases, what the workload
// already does, and the headline verdict on what bounds it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/iterations/bound_verdict.h"
#include "analysis/iterations/run_phases.h"
#include "analysis/stages/stage_gpu_metrics.h"
#include "analysis/stages/stage_mfu.h"
#include "analysis/timeline/timeline.h"

namespace kscope::report {

// One iteration of the loop: "warm-up (differs)" before the loop, "warm-up" (the first
// stages.warmup of the loop) or "steady".
struct IterationRow {
  int64_t index = 0;     // from 1, in start order
  int64_t start_ns = 0;  // from the run's start
  int64_t wall_ns = 0, kernels = 0, kernel_ns = 0;
  double gpu_busy_pct = 0;
  std::string kind;
  // nsys's GPU metrics sampled inside the iteration's window (runs recorded with them).
  std::optional<analysis::SampledGpuMetrics> gpu_metrics;
};

// The repeated iterations of a run without NVTX stages (analysis/iterations/iterations.h).
struct IterationPart {
  std::string source;    // "kernel sequence" or "CUDA graph launches"
  std::string evidence;  // one sentence: how the loop was found
  // What marks each iteration's start: "CUDA graph launch", "host synchronization", "idle gap"
  // or "none" (analysis/iterations/iteration_boundary.h).
  std::string boundary;
  int64_t repeat_kernels = 0;  // kernels of the smallest repeated sequence
  int64_t sync_repeats = 1;    // repeats of it per iteration (k: synchronizations every k repeats)
  // The idle gap before an iteration's first kernel over the longest before its other kernels
  // (medians; a loop found from the kernel sequence; null when infinite).
  std::optional<double> boundary_gap_ratio;
  // When nothing marks the iterations: each is the smallest repeated sequence, and may be one
  // part (a layer) of a coarser loop the trace does not show.
  std::optional<std::string> note;
  int64_t period_kernels = 0, loop_iterations = 0, differing = 0, warmup = 0, steady = 0, graph_launches = 0;
  int64_t first_wall_ns = 0;                // the first iteration of the loop
  double steady_median_wall_ns = 0;         // the steady ones
  double steady_gpu_busy_pct = 0;           // busy share of the steady iterations' time
  double kernel_coverage_pct = 0;           // share of the run's kernel time in the loop
  analysis::StageMfu mfu;                   // over the steady iterations
  std::vector<IterationRow> rows;           // differing, warm-up and steady, in order
  std::vector<analysis::Finding> findings;  // the timeline's findings on the steady iterations
  // nsys's GPU metrics sampled over the steady iterations' windows (runs recorded with them).
  std::optional<analysis::SampledGpuMetrics> gpu_metrics;
};

// What the workload already does (analysis/iterations/workload_traits.h).
struct WorkloadPart {
  int64_t graph_launches = 0, graph_kernels = 0;
  double graph_kernel_pct = 0;
  int64_t triton_kernels = 0;
  double triton_kernel_pct = 0;
  int64_t module_loads = 0;
};

// What bounds the run: on its steady part (iterations or NVTX stage instances) when it has
// one, and on the whole run.
struct HeadlinePart {
  std::string scope;  // "steady iterations", "steady stage instances" or "whole run"
  analysis::BoundVerdict verdict;
  std::optional<analysis::BoundVerdict> whole_run;  // when the scope is not the whole run
};

}  // namespace kscope::report
