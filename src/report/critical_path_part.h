// The report's critical path: what one step of the run waits on (analysis/graph/whatif.h,
// the recording replayed with no edit), for the step set a user means by "a step": the
// outermost repeating NVTX stage, else the run's iterations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
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

// What a step saves, replayed, were one kernel's launches twice as fast (kernel:NAME=0.5 on the
// critical path's steps): per median step, and its share of the step.
struct KernelWorth {
  double saving_ns = 0, saving_pct = 0;
};

// The critical path of one step to draw over its threads and streams (report.html): the median
// step by recorded length, its pieces on the lanes they ran on.
struct PathDrawing {
  int64_t step = 0;                  // which step of the set, from 1
  int64_t start_ns = 0, end_ns = 0;  // the step, as recorded
  struct Lane {
    std::string name;  // "thread 4242", "GPU 0 stream 7", with "rank R: " in a job of several
    int64_t rank = -1;
  };
  std::vector<Lane> lanes;  // by rank, then threads before streams
  struct Piece {
    size_t lane = 0;
    int64_t start_ns = 0, end_ns = 0;
    std::string part;  // analysis::graph::PathPartName
    std::string what;  // the CUDA call or the operation (a kernel's short name)
  };
  // In time order; pieces of one part on one lane back to back are one. At most kMaxPieces, the
  // longest: the rest (pieces_left_out) are too short to see at a step's scale.
  std::vector<Piece> pieces;
  int64_t pieces_left_out = 0;
  static constexpr size_t kMaxPieces = 2000;
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
  // What else the path runs through most (its largest part but kernels, ns per typical step):
  // what must shrink before a kernel off the path is worth speeding up. Empty: only kernels.
  std::string held_by{};
  double held_by_ns = 0;
  // A job of several ranks: each rank's part of the path (ns per typical step, by part, those
  // it runs through), so the job's view names the rank that holds a step up and in what.
  struct Rank {
    int64_t rank = 0;
    std::vector<std::pair<std::string, double>> parts;
  };
  std::vector<Rank> ranks;
  std::optional<PathDrawing> drawing{};
};

}  // namespace kscope::report
