// What bounds a stretch of a run (its steady iterations, or the whole run), by evidence: where
// the GPU's idle time went. Each GPU-idle gap inside the windows is put in one bucket:
// - launch overhead: gaps shorter than min_gap (between back-to-back launches);
// - compilation: a module was loaded during the gap (cuModuleLoad*: JIT-compiled kernels);
// - after a synchronization: a synchronizing call (cudaDeviceSynchronize, a blocking copy, ...)
//   is under way at the gap's start, so the GPU drained while the host waited and stays idle
//   until the host queues new work;
// - host in CUDA calls: CUDA calls cover at least half of the gap (allocation, set-up);
// - host outside CUDA: the rest (Python, data loading, I/O).
// The verdict: GPU-bound when the GPU is busy at least 80% of the time;
// otherwise the largest bucket: launch-bound, synchronization-bound, compilation-bound or
// host-bound (both host buckets together).
#pragma once

#include <cstdint>
#include <string>

#include "analysis/iterations/workload_traits.h"
#include "analysis/timeline/intervals.h"
#include "analysis/timeline/timeline.h"
#include "analysis/timeline/timeline_events.h"

namespace kscope::analysis {

struct BoundVerdict {
  std::string kind;  // gpu_bound, launch_bound, synchronization_bound, compilation_bound, host_bound
  std::string title;
  std::string evidence;
  int64_t wall_ns = 0, gpu_busy_ns = 0, idle_ns = 0;
  int64_t launch_gap_ns = 0, after_sync_ns = 0, compilation_ns = 0, host_cuda_ns = 0, host_other_ns = 0;
  double gpu_busy_pct = 0;
};

// `windows`: merged (IntervalSet); empty gives an empty verdict (kind "").
BoundVerdict JudgeBound(const TimelineEvents& events, const IntervalSet& windows, const WorkloadTraits& traits,
                        const TimelineThresholds& t);

}  // namespace kscope::analysis
