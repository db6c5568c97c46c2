#include "analysis/graph/dependency_graph.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "analysis/graph/graph_build.h"
#include "store/column_codec.h"

namespace kscope::analysis::graph {

using store::kNull;

std::string_view EdgeKindName(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kDuration: return "duration";
    case EdgeKind::kHostOrder: return "host order";
    case EdgeKind::kNested: return "nested";
    case EdgeKind::kLaunch: return "launch";
    case EdgeKind::kStreamOrder: return "stream order";
    case EdgeKind::kSync: return "sync";
    case EdgeKind::kBlocked: return "blocked";
    case EdgeKind::kCrossStream: return "cross-stream";
    case EdgeKind::kCollective: return "collective";
    case EdgeKind::kThreadWake: return "thread wake";
  }
  return "";
}

int64_t DependencyGraph::recorded(uint32_t point) const {
  const uint32_t n = NodeOf(point);
  if (is_call(n)) return IsEnd(point) ? events.calls.end[n] : events.calls.start[n];
  return IsEnd(point) ? events.ops.end[op(n)] : events.ops.start[op(n)];
}

namespace {

// Lanes: each host thread, then each (process, device, stream); nodes of each in time order.
void MakeLanes(GraphBuild& b) {
  DependencyGraph& g = b.g;
  const auto& c = g.events.calls;
  const auto& o = g.events.ops;
  std::map<int64_t, uint32_t> threads;
  std::map<std::tuple<int64_t, int64_t, int64_t>, uint32_t> streams;
  g.lane.resize(g.nodes());
  for (uint32_t i = 0; i < g.calls; ++i) {
    auto [it, added] = threads.try_emplace(c.global_tid[i], static_cast<uint32_t>(g.lanes.size()));
    if (added) g.lanes.push_back({true, c.global_tid[i] & ~int64_t{0xFFFFFF}, c.global_tid[i], -1, -1});
    g.lane[i] = it->second;
  }
  for (uint32_t i = 0; i < g.ops; ++i) {
    const auto key = std::make_tuple(o.global_pid[i], o.device[i], o.stream[i]);
    auto [it, added] = streams.try_emplace(key, static_cast<uint32_t>(g.lanes.size()));
    if (added) g.lanes.push_back({false, o.global_pid[i], 0, o.device[i], o.stream[i]});
    g.lane[g.calls + i] = it->second;
  }
  b.lane_nodes.assign(g.lanes.size(), {});
  for (uint32_t n = 0; n < g.nodes(); ++n) b.lane_nodes[g.lane[n]].push_back(n);
  for (auto& nodes : b.lane_nodes) {
    std::stable_sort(nodes.begin(), nodes.end(), [&](uint32_t x, uint32_t y) {
      const int64_t sx = g.recorded(StartOf(x)), sy = g.recorded(StartOf(y));
      if (sx != sy) return sx < sy;
      return g.recorded(EndOf(x)) > g.recorded(EndOf(y));  // a call before those made inside it
    });
  }
}

// Each thread's calls in order: a call that starts before the thread's current outer call
// ended is made inside it.
void HostOrder(GraphBuild& b) {
  DependencyGraph& g = b.g;
  g.nested.assign(g.calls, 0);
  for (size_t l = 0; l < g.lanes.size(); ++l) {
    if (!g.lanes[l].host) continue;
    std::optional<uint32_t> outer;
    for (const uint32_t n : b.lane_nodes[l]) {
      if (outer && g.recorded(StartOf(n)) < g.recorded(EndOf(*outer))) {
        g.nested[n] = 1;
        b.Add(StartOf(*outer), StartOf(n), EdgeKind::kNested, g.recorded(StartOf(n)) - g.recorded(StartOf(*outer)));
        continue;
      }
      if (outer)
        b.Add(EndOf(*outer), StartOf(n), EdgeKind::kHostOrder, g.recorded(StartOf(n)) - g.recorded(EndOf(*outer)));
      outer = n;
    }
  }
}

struct PidCorr {
  int64_t pid, corr;
  bool operator==(const PidCorr&) const = default;
};
struct PidCorrHash {
  size_t operator()(const PidCorr& k) const {
    return std::hash<int64_t>()(k.pid) * 0x9E3779B97F4A7C15ULL ^ std::hash<int64_t>()(k.corr);
  }
};

// Each operation to the call that launched it: the first call of its process with its
// correlation id (import/shared_correlations.h counts the others).
void Launches(GraphBuild& b) {
  DependencyGraph& g = b.g;
  const auto& c = g.events.calls;
  const auto& o = g.events.ops;
  std::unordered_map<PidCorr, uint32_t, PidCorrHash> by_corr;
  by_corr.reserve(g.calls);
  for (uint32_t i = 0; i < g.calls; ++i) {
    if (c.correlation[i] == kNull) continue;
    by_corr.try_emplace(PidCorr{c.global_tid[i] & ~int64_t{0xFFFFFF}, c.correlation[i]}, i);
  }
  b.launcher.assign(g.ops, kNoNode);
  g.launches.assign(g.calls, 0);
  std::unordered_map<int64_t, bool> process_calls;
  for (uint32_t i = 0; i < g.calls; ++i) process_calls[c.global_tid[i] & ~int64_t{0xFFFFFF}] = true;
  std::unordered_map<int64_t, bool> counted;
  for (uint32_t i = 0; i < g.ops; ++i) {
    const auto it =
        o.correlation[i] == kNull ? by_corr.end() : by_corr.find(PidCorr{o.global_pid[i], o.correlation[i]});
    if (it == by_corr.end()) {
      ++g.gaps.ops_without_launch;
      if (!process_calls.contains(o.global_pid[i]) && !counted[o.global_pid[i]]) {
        counted[o.global_pid[i]] = true;
        ++g.gaps.processes_without_calls;
      }
      continue;
    }
    b.launcher[i] = it->second;
    g.launches[it->second] = 1;
    const uint32_t node = static_cast<uint32_t>(g.calls + i);
    b.Add(StartOf(it->second), StartOf(node), EdgeKind::kLaunch, o.start[i] - c.start[it->second]);
  }
}

// Each stream's operations in order.
void StreamOrder(GraphBuild& b) {
  DependencyGraph& g = b.g;
  for (size_t l = 0; l < g.lanes.size(); ++l) {
    if (g.lanes[l].host) continue;
    const auto& nodes = b.lane_nodes[l];
    for (size_t k = 1; k < nodes.size(); ++k) {
      b.Add(EndOf(nodes[k - 1]), StartOf(nodes[k]), EdgeKind::kStreamOrder,
            g.recorded(StartOf(nodes[k])) - g.recorded(EndOf(nodes[k - 1])));
    }
  }
}

}  // namespace

DependencyGraph BuildGraph(GraphEvents events) {
  GraphBuild b;
  DependencyGraph& g = b.g;
  g.events = std::move(events);
  g.calls = g.events.calls.start.size();
  g.ops = g.events.ops.start.size();
  g.duration.resize(g.nodes());
  for (uint32_t n = 0; n < g.nodes(); ++n) g.duration[n] = g.recorded(EndOf(n)) - g.recorded(StartOf(n));
  MakeLanes(b);
  HostOrder(b);
  Launches(b);
  StreamOrder(b);
  ThreadWakes(b);  // graph_threads.cc
  Waits(b);        // graph_waits.cc
  Collectives(b);  // graph_collectives.cc
  Calibrate(b);    // graph_calibrate.cc: typical latencies, cross-stream edges, CSR
  return std::move(b.g);
}

}  // namespace kscope::analysis::graph
