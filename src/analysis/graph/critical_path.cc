#include "analysis/graph/critical_path.h"

#include <algorithm>

namespace kscope::analysis::graph {

std::string_view PathPartName(PathPart part) {
  switch (part) {
    case PathPart::kKernel: return "kernels";
    case PathPart::kCommunication: return "communication";
    case PathPart::kCopy: return "copies and sets";
    case PathPart::kLaunch: return "launch overhead";
    case PathPart::kHost: return "host work outside CUDA";
    case PathPart::kApi: return "other CUDA calls";
    case PathPart::kSync: return "synchronization";
    case PathPart::kStreamGap: return "stream gaps";
    case PathPart::kCrossStream: return "waits on other streams";
  }
  return "";
}

namespace {

// A node's own work.
PathPart WorkOf(const DependencyGraph& g, uint32_t node) {
  if (!g.is_call(node)) {
    const size_t op = g.op(node);
    if (!g.events.ops.is_kernel[op]) return PathPart::kCopy;
    return g.communication[op] != 0 ? PathPart::kCommunication : PathPart::kKernel;
  }
  if (g.launches[node] != 0) return PathPart::kLaunch;
  const size_t f = g.events.function_of(g.events.calls.name[node]);
  return g.events.function_role[f] == CallRole::kSynchronize ? PathPart::kSync : PathPart::kApi;
}

PathPart WaitOf(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kHostOrder: return PathPart::kHost;
    case EdgeKind::kNested: return PathPart::kApi;
    case EdgeKind::kLaunch: return PathPart::kLaunch;
    case EdgeKind::kStreamOrder: return PathPart::kStreamGap;
    case EdgeKind::kSync:
    case EdgeKind::kBlocked: return PathPart::kSync;
    case EdgeKind::kCrossStream: return PathPart::kCrossStream;
    case EdgeKind::kCollective: return PathPart::kCommunication;
    case EdgeKind::kThreadWake: return PathPart::kHost;
    case EdgeKind::kDuration: return PathPart::kApi;
  }
  return PathPart::kApi;
}

}  // namespace

std::vector<PathSegment> WalkBack(const DependencyGraph& g, const Replayed& r, uint32_t to, int64_t from) {
  std::vector<PathSegment> path;
  uint32_t p = to;
  for (size_t steps = 0; steps < g.points() && r.time[p] > from; ++steps) {
    const uint32_t by = r.binding[p];
    if (by == kAnchored) break;
    uint32_t source = 0;
    PathPart part{};
    if (by == kByDuration) {
      source = p - 1;
      part = WorkOf(g, NodeOf(p));
    } else {
      source = g.edges[by].from;
      part = WaitOf(g.edges[by].kind);
    }
    const int64_t start = std::max(r.time[source], from);
    if (r.time[p] > start) path.push_back({NodeOf(p), part, start, r.time[p]});
    if (r.time[source] > r.time[p]) break;  // a negative gap (clocks apart): nothing to walk back
    p = source;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace kscope::analysis::graph
