// The steps of BuildGraph (dependency_graph.cc), shared by the files that hold them: the
// graph being built, each lane's nodes in order, each operation's launching call.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/graph/dependency_graph.h"

namespace kscope::analysis::graph {

inline constexpr uint32_t kNoNode = kNoLauncher;

struct GraphBuild {
  DependencyGraph g;
  std::vector<std::vector<uint32_t>>& lane_nodes = g.lane_nodes;
  std::vector<uint32_t>& launcher = g.launcher;  // per operation: the call that launched it, or kNoNode

  void Add(uint32_t from, uint32_t to, EdgeKind kind, int64_t gap) { g.edges.push_back({from, to, kind, gap}); }
};

// Thread-wake edges between a process's host threads (graph_threads.cc).
void ThreadWakes(GraphBuild& b);
// Sync and blocked edges, and each waiting call's own duration (graph_waits.cc).
void Waits(GraphBuild& b);
// Collective edges across the ranks of a job (graph_collectives.cc).
void Collectives(GraphBuild& b);
// Typical latencies for the edges that did not hold their point up, cross-stream edges for
// operations held up by nothing the graph has, then the edges by target (graph_calibrate.cc).
void Calibrate(GraphBuild& b);

}  // namespace kscope::analysis::graph
