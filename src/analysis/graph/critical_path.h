// The critical path of a stretch of a replayed run: from a point, back along the edges that set
// each point's time (Replayed::binding), to the stretch's start. Each piece of it is time spent
// in one kind of work, so the path's length splits into what the step waited on.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/graph/dependency_graph.h"
#include "analysis/graph/replay.h"

namespace kscope::analysis::graph {

enum class PathPart : uint8_t {
  kKernel,         // a kernel running (compute)
  kCommunication,  // a collective's transfer (NCCL...)
  kCopy,           // a copy or set running
  kLaunch,         // launching: a launch call's own time, and the latency to its operation's start
  kHost,           // the host's own work between CUDA calls (Python, the framework)
  kApi,            // other CUDA calls' own time
  kSync,           // a synchronizing or blocked call's own time and its wake-up after the GPU
  kStreamGap,      // between two operations of a stream
  kCrossStream,    // waiting for another stream's operation
};
inline constexpr size_t kPathParts = 9;
std::string_view PathPartName(PathPart part);  // "kernels", "communication", ...

struct PathSegment {
  uint32_t node = 0;  // whose work or wait this is (an edge's: its target's node)
  PathPart part = PathPart::kKernel;
  int64_t start = 0, end = 0;  // replayed times
};

// The path that ends at `to`, back to `from` (a replayed time), in time order; pieces before
// `from` are cut off there.
std::vector<PathSegment> WalkBack(const DependencyGraph& g, const Replayed& r, uint32_t to, int64_t from);

}  // namespace kscope::analysis::graph
