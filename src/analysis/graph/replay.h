// Replays a dependency graph: every point at the latest time its in-edges allow (each source's
// replayed time plus the edge's gap; an end also its node's start plus its duration), points
// without in-edges at their recorded time. With the graph's own durations and gaps this gives
// the recording back; an edit (whatif.h) changes durations and gaps, and the replay says what
// the run would have done.
//
// Points are taken in dependency order (Kahn's algorithm). Dependencies that form a cycle (a
// broken capture: clocks apart, a wrong correlation) cannot be ordered: their points are
// placed last, in recorded order, each from the sources placed already, and counted.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/graph/dependency_graph.h"

namespace kscope::analysis::graph {

inline constexpr int64_t kEdgeRemoved = std::numeric_limits<int64_t>::min();
inline constexpr uint32_t kByDuration = std::numeric_limits<uint32_t>::max();    // an end set by its start
inline constexpr uint32_t kAnchored = std::numeric_limits<uint32_t>::max() - 1;  // no in-edge: as recorded

struct Replayed {
  std::vector<int64_t> time;      // per point
  std::vector<uint32_t> binding;  // per point: the edge that set it, kByDuration or kAnchored
  int64_t cyclic = 0;             // points placed out of dependency order
};

// `duration` per node and `gap` per edge (kEdgeRemoved drops the edge).
Replayed Replay(const DependencyGraph& g, const std::vector<int64_t>& duration, const std::vector<int64_t>& gap);

// The recording: the graph's own durations and gaps.
Replayed Replay(const DependencyGraph& g);
std::vector<int64_t> GapsOf(const DependencyGraph& g);

}  // namespace kscope::analysis::graph
