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
  int64_t start = 0, end = 0;              // its first and last instant
  int64_t parts = 0;                       // disjoint intervals it is made of
};

// The loop's windows in start order, steady or not.
struct LoopWindows {
  std::vector<TimeWindow> windows;
  std::vector<char> steady;
};

// Phases with time in them, in the order above; none when the loop has no steady window.
std::vector<RunPhase> SplitRun(const TimelineEvents& events, const LoopWindows& loop, const WorkloadTraits& traits,
                               int64_t min_gap_ns);

}  // namespace kscope::analysis
