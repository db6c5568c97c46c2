// The steps a what-if answers for: the steady instances of an NVTX stage, or the iterations
// of the run's loop (analysis/iterations/iterations.h). A step runs from one marker to the
// next; a marker is a point of the graph and an offset before it, so that its time moves with
// the replay:
// - a stage instance starts where its range opens on its thread: the first call the thread
//   makes at or after that time, less the time between the two; it ends where the range
//   closes, after the last call the thread finished before then;
// - an iteration starts at its first kernel's start.
// A step of an outermost stage, or an iteration, lasts until the next one starts on the same
// thread (in the same loop): the period a user measures between two steps, as the steps run
// back to back (the set's last step, which has no next, is left out). A stage inside another
// (forward inside step) lasts from its range's start to its end.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/graph/dependency_graph.h"
#include "analysis/graph/replay.h"

namespace kscope::analysis::graph {

struct StepMarker {
  uint32_t point = 0;
  int64_t offset = 0;  // ns before the point's time
  [[nodiscard]] int64_t At(const Replayed& r) const { return r.time[point] - offset; }
};

struct Step {
  StepMarker begin, end;
  int64_t global_pid = 0;  // the process (rank) it ran in
};

enum class StepSource { kStage, kIterations };

struct StepSet {
  StepSource source = StepSource::kStage;
  std::string name;    // the stage's display name, or "iteration"
  std::string how;     // what marks the steps ("NVTX range", "CUDA graph launches", ...)
  int64_t warmup = 0;  // instances left out at the start (each process's)
  std::vector<Step> steps;
  // The nodes inside its instances (for an edit's scope): calls made while one was open on
  // its process, and the operations they launched.
  std::vector<uint8_t> inside;  // per node
  // Its instances' spans on the host, merged where they overlap: per process, by start.
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> spans;
};

// The time [from, to) shares with `spans` (by start, disjoint).
int64_t Overlap(const std::vector<std::pair<int64_t, int64_t>>& spans, int64_t from, int64_t to);

// The first outer call of `global_tid` starting at or after `time` as a marker, or nothing.
std::optional<StepMarker> HostMarker(const DependencyGraph& g, int64_t global_tid, int64_t time);
// The end of the last outer call of `global_tid` that ended at or before `time` (the marker's
// offset is then negative: the time comes after the point).
std::optional<StepMarker> HostEndMarker(const DependencyGraph& g, int64_t global_tid, int64_t time);

}  // namespace kscope::analysis::graph
