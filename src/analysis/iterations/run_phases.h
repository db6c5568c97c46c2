// A run's time split by what it was for: start-up (process and CUDA set-up, model load,
// weights copied), compilation, warm-up, the steady iterations (or stage instances), the time
// between them and the tail, so that whole-run figures need not mix them.
//
// Definitions, over the run's span (first to last GPU operation or CUDA call):
// - steady: the steady windows (iterations after the warm-up, or NVTX stage instances);
// - warm-up: the loop's windows that are not steady (the first iterations, and those before
//   the loop whose kernels differ from the steady ones), less compilation;
// - compilation: GPU-idle gaps of at least min_gap outside the steady windows (the warm-up
//   ones included: torch.compile compiles during the first step) during which a module was
//   loaded (cuModuleLoad*: torch.compile's and other JIT compilers' kernels arrive
//   so; the compiling is the host work before the load);
// - start-up: the rest before the first window; tail: the rest after the last one;
//   between: the rest between two windows.
// The rows tile the span in time order: each is one stretch of time (its range is its wall
// time), adjacent stretches of one kind make one row, and a `between` gap whose neighbours
// are both steady windows belongs to the steady row (counted in its between_ns), so a loop of
// many steady windows is one row, not one per window and gap. A kind may have several rows
// (a compilation inside the warm-up splits it in two).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/iterations/workload_traits.h"
#include "analysis/timeline/intervals.h"
#include "analysis/timeline/timeline_events.h"

namespace kscope::analysis {

struct RunPhase {
  std::string kind;  // start-up, compilation, warm-up, steady, between, tail
  int64_t wall_ns = 0, gpu_busy_ns = 0;
  double share_pct = 0, gpu_busy_pct = 0;  // of the run's span; of the phase's own time
  int64_t kernels = 0;                     // kernels that start in it
  int64_t start = 0, end = 0;              // its first and last instant: end - start == wall_ns
  int64_t parts = 0;                       // stretches merged into it (windows and the gaps between them)
  int64_t between_ns = 0;                  // a steady row: its time between steady windows
};

// The loop's windows in start order, steady or not.
struct LoopWindows {
  std::vector<TimeWindow> windows;
  std::vector<char> steady;
};

// The rows, in time order, tiling the run's span; none when the loop has no steady window.
std::vector<RunPhase> SplitRun(const TimelineEvents& events, const LoopWindows& loop, const WorkloadTraits& traits,
                               int64_t min_gap_ns);

}  // namespace kscope::analysis
