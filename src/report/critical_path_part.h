// The report's critical path: what one step of the run waits on (analysis/graph/whatif.h,
// the recording replayed with no edit), for the step set a user means by "a step": the
// outermost repeating NVTX stage, else the run's iterations.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kscope::report {

struct PathKernelRow {
  std::string name{}, short_name{};
  int64_t launches = 0;  // per step
  double gpu_ns = 0;     // its GPU time per step
  double path_ns = 0;    // the part of that on the critical path
};

struct CriticalPathPart {
  std::string steps;      // the stage's display name, or "iteration"
  std::string marked_by;  // what marks the steps
  int64_t steps_count = 0, typical_steps = 0;
  double median_step_ns = 0, typical_step_ns = 0;
  // ns per typical step by what the path runs through (analysis::graph::PathPartName), those
  // it runs through, in the parts' order.
  std::vector<std::pair<std::string, double>> parts;
  std::vector<PathKernelRow> kernels;  // by time on the path, at most 10
  // A job of several ranks: each rank's part of the path (ns per typical step, by part, those
  // it runs through), so the job's view names the rank that holds a step up and in what.
  struct Rank {
    int64_t rank = 0;
    std::vector<std::pair<std::string, double>> parts;
  };
  std::vector<Rank> ranks;
};

}  // namespace kscope::report
