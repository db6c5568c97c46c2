// The latencies of the edges that did not hold their point up in the recording, and edges
// from another stream for operations that nothing else explains (dependency_graph.h says why).
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "analysis/graph/graph_build.h"

namespace kscope::analysis::graph {

namespace {

// An operation that started this much after what its launch and its stream allow is held up
// by something else; another stream's operation that ended at most kCrossStreamNs before it
// started is taken for that.
constexpr int64_t kUnexplainedNs = 10'000;
constexpr int64_t kCrossStreamNs = 20'000;
constexpr int64_t kDefaultStreamGapNs = 1'000;

int64_t Percentile(std::vector<int64_t>& v, size_t pct, int64_t none) {
  if (v.empty()) return none;
  const size_t at = v.size() * pct / 100;
  std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(at), v.end());
  return std::max<int64_t>(v[at], 0);
}

struct Typical {
  std::vector<int64_t> launch;                  // per function: the 10th percentile of its launch gaps
  std::unordered_map<int64_t, int64_t> stream;  // per device: the median gap of operations that waited for their stream
};

Typical TypicalLatencies(const GraphBuild& b) {
  const DependencyGraph& g = b.g;
  const auto& c = g.events.calls;
  std::vector<std::vector<int64_t>> launch(g.events.function_ids.size());
  std::unordered_map<int64_t, std::vector<int64_t>> stream;
  for (const Edge& e : g.edges) {
    const uint32_t to = NodeOf(e.to);
    if (e.kind == EdgeKind::kLaunch) {
      launch[g.events.function_of(c.name[NodeOf(e.from)])].push_back(e.gap);
    } else if (e.kind == EdgeKind::kStreamOrder) {
      const uint32_t by = b.launcher[g.op(to)];
      // Launched before the stream was free: the gap is the stream's own.
      if (by != kNoNode && c.end[by] <= g.recorded(e.from)) stream[g.lanes[g.lane[to]].device].push_back(e.gap);
    }
  }
  Typical t;
  for (auto& gaps : launch) t.launch.push_back(Percentile(gaps, 10, 0));
  for (auto& [device, gaps] : stream) t.stream[device] = Percentile(gaps, 50, kDefaultStreamGapNs);
  return t;
}

}  // namespace

void Calibrate(GraphBuild& b) {
  DependencyGraph& g = b.g;
  const auto& o = g.events.ops;
  const auto& c = g.events.calls;
  const Typical typical = TypicalLatencies(b);
  auto typical_of = [&](const Edge& e) -> int64_t {
    if (e.kind == EdgeKind::kLaunch) return typical.launch[g.events.function_of(c.name[NodeOf(e.from)])];
    if (e.kind == EdgeKind::kStreamOrder) {
      const auto it = typical.stream.find(g.lanes[g.lane[NodeOf(e.to)]].device);
      return it == typical.stream.end() ? kDefaultStreamGapNs : it->second;
    }
    return e.gap;
  };
  std::stable_sort(g.edges.begin(), g.edges.end(), [](const Edge& x, const Edge& y) { return x.to < y.to; });
  // Each process's operations by end, for the cross-stream edges.
  std::unordered_map<int64_t, std::vector<uint32_t>> by_end;
  for (uint32_t i = 0; i < g.ops; ++i) by_end[o.global_pid[i]].push_back(i);
  for (auto& [pid, ops] : by_end) {
    std::sort(ops.begin(), ops.end(), [&](uint32_t x, uint32_t y) { return o.end[x] < o.end[y]; });
  }
  std::vector<Edge> added;
  for (size_t lo = 0; lo < g.edges.size();) {
    size_t hi = lo;
    while (hi < g.edges.size() && g.edges[hi].to == g.edges[lo].to) ++hi;
    const uint32_t to = g.edges[lo].to;
    const int64_t at = g.recorded(to);
    if (!IsEnd(to) && g.is_call(NodeOf(to)) && hi - lo > 1) {
      // Woken by another thread: that wait holds the call up, and the host-order gap before it
      // was the thread's waiting, not its work.
      for (size_t e = lo; e < hi; ++e) {
        if (g.edges[e].kind == EdgeKind::kHostOrder) g.edges[e].gap = std::min<int64_t>(g.edges[e].gap, 0);
      }
    }
    if (!IsEnd(to) && !g.is_call(NodeOf(to))) {
      size_t binding = lo;
      int64_t ready = INT64_MIN;
      for (size_t e = lo; e < hi; ++e) {
        const int64_t t = g.recorded(g.edges[e].from) + typical_of(g.edges[e]);
        if (t > ready) ready = t, binding = e;
      }
      for (size_t e = lo; e < hi; ++e) {
        Edge& edge = g.edges[e];
        const int64_t measured = at - g.recorded(edge.from);
        edge.gap = e == binding ? measured : std::min(typical_of(edge), measured);
      }
      // Held up past what its launch and stream allow: by another stream's operation?
      if (at - ready > kUnexplainedNs) {
        const uint32_t op = static_cast<uint32_t>(g.op(NodeOf(to)));
        const auto& ops = by_end[o.global_pid[op]];
        auto it = std::upper_bound(ops.begin(), ops.end(), at, [&](int64_t t, uint32_t x) { return t < o.end[x]; });
        while (it != ops.begin()) {
          --it;
          if (o.end[*it] < at - kCrossStreamNs || o.end[*it] <= ready) break;
          if (g.lane[g.calls + *it] == g.lane[NodeOf(to)]) continue;
          g.edges[binding].gap = std::min(typical_of(g.edges[binding]), g.edges[binding].gap);
          added.push_back({EndOf(static_cast<uint32_t>(g.calls + *it)), to, EdgeKind::kCrossStream, at - o.end[*it]});
          break;
        }
      }
    }
    lo = hi;
  }
  g.edges.insert(g.edges.end(), added.begin(), added.end());
  std::stable_sort(g.edges.begin(), g.edges.end(), [](const Edge& x, const Edge& y) { return x.to < y.to; });
  const size_t points = g.points();
  g.in_begin.assign(points + 1, 0);
  std::vector<uint32_t> out_count(points + 1, 0);
  for (const Edge& e : g.edges) {
    ++g.in_begin[e.to + 1];
    ++out_count[e.from + 1];
    ++g.edges_by_kind[static_cast<size_t>(e.kind)];
    if (g.recorded(e.from) > g.recorded(e.to)) ++g.gaps.backward_edges;
  }
  std::partial_sum(g.in_begin.begin(), g.in_begin.end(), g.in_begin.begin());
  std::partial_sum(out_count.begin(), out_count.end(), out_count.begin());
  g.out_begin = out_count;
  g.out_edges.assign(g.edges.size(), 0);
  for (uint32_t e = 0; e < g.edges.size(); ++e) g.out_edges[out_count[g.edges[e].from]++] = e;
}

}  // namespace kscope::analysis::graph
