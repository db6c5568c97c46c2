// A run's repeated iterations, found without NVTX: from the kernel sequence, and from CUDA
// graph launches where the run replays graphs.
//
// Definitions:
// - The kernel sequence: the run's kernels in start order, each as its name (string id); the
//   grid and block are left out, so that steps whose shapes grow (a decoder's cache) still match.
// - An iteration is a stretch of P consecutive kernels (its period) that is repeated exactly,
//   kernel by kernel, by the stretches before or after it. The loop is the longest run of
//   such repeats: for each kernel name, the stretches between its consecutive launches are
//   compared (a polynomial hash of the names, and their lengths), and the name whose equal
//   stretches follow each other over the most kernels gives P. An inner loop (the layers of one
//   step) repeats fewer kernels than the outer one, so the outer one wins.
// - Where the run replays CUDA graphs (kernels that carry a graph node id, one correlation id
//   per launch), an iteration starts at each launch's first kernel; otherwise at the kernel
//   of the period that follows the longest GPU idle gap (median over the repeats): the host's
//   work between two steps (the loop's Python, a loss read back).
// - What marks the iterations (analysis/iterations/iteration_boundary.h): a CUDA graph launch
//   each; else host synchronizations: where they recur at one place of the repeated sequence
//   every k repeats, the iteration is the span between two of them (k repeats, from the kernel
//   after one), so a pass of k identical layers that ends in a synchronization is one
//   iteration, not k; else an idle gap before each iteration's first kernel that stands out
//   from those before its other kernels; else nothing: the iteration is the smallest repeated
//   sequence, and nothing in the trace says whether a coarser loop holds it (a pass of
//   identical layers with nothing between passes repeats per layer).
// - Each iteration's window runs from its first kernel's start to the next iteration's first
//   kernel's start (the last one: to the end of its last kernel), so the windows tile the loop
//   and busy time is a share of the period.
// - Kernels before the first iteration and after the last are outside the loop (start-up,
//   compilation, warm-up, tail: analysis/iterations/run_phases.h); the differing iterations
//   just before it are the loop's warm-up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/timeline/intervals.h"
#include "analysis/timeline/nsys_events.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

struct Iteration {
  int64_t start = 0, end = 0;  // the window, ns
  int64_t first_kernel = 0;    // position in the start-ordered kernel sequence
  int64_t kernels = 0, kernel_ns = 0;
};

enum class IterationSource { kNone, kKernelSequence, kCudaGraph };
std::string IterationSourceName(IterationSource s);  // "none", "kernel sequence", "CUDA graph launches"

// What marks where each iteration starts.
enum class IterationBoundary { kNone, kGraphLaunch, kSynchronization, kIdleGap };
// "none", "CUDA graph launch", "host synchronization", "idle gap"
std::string IterationBoundaryName(IterationBoundary b);

struct IterationLoop {
  IterationSource source = IterationSource::kNone;
  int64_t period = 0;                 // kernels per iteration
  std::vector<Iteration> iterations;  // in start order; empty when no loop was found
  // Iterations just before the loop whose kernels differ from the loop's (the first steps:
  // optimizer state, autotuning, compilation): stretches of one period, walked back from the
  // loop, that share at least half their kernel names (counted) with its iterations.
  std::vector<Iteration> differing;
  std::vector<int64_t> order;  // kernel rows (NsysEvents order) in start order
  int64_t graph_launches = 0;  // distinct graph launches among the loop's kernels
  IterationBoundary boundary = IterationBoundary::kNone;
  int64_t repeat_kernels = 0;     // kernels of the smallest repeated sequence
  int64_t sync_repeats = 1;       // repeats of it per iteration: k where synchronizations recur every k
  double boundary_gap_ratio = 0;  // the gap before an iteration over the longest other (kernel sequence)
};

struct IterationInput {
  std::vector<int64_t> start, end, name;  // per kernel row, as NsysEvents holds them
  std::vector<int64_t> graph_launch;      // per kernel row: a graph launch's id, or -1
  std::vector<int64_t> sync_end;          // when each of the host's synchronizing calls returned, ascending
};

// At least `min_iterations` repeats make a loop.
IterationLoop FindIterations(const IterationInput& in, int64_t min_iterations = 3);

// The input from a stored run: its kernels, from the graph node column which graph launch
// (process and correlation id) each kernel belongs to, and its synchronizing CUDA calls.
Result<IterationInput> LoadIterationInput(store::Store& store, int64_t run_id, const NsysEvents& nsys);

}  // namespace kscope::analysis
