#include "analysis/graph/replay.h"

#include <algorithm>
#include <numeric>

namespace kscope::analysis::graph {

std::vector<int64_t> GapsOf(const DependencyGraph& g) {
  std::vector<int64_t> gaps(g.edges.size());
  for (size_t e = 0; e < g.edges.size(); ++e) gaps[e] = g.edges[e].gap;
  return gaps;
}

Replayed Replay(const DependencyGraph& g) { return Replay(g, g.duration, GapsOf(g)); }

Replayed Replay(const DependencyGraph& g, const std::vector<int64_t>& duration, const std::vector<int64_t>& gap) {
  const size_t points = g.points();
  Replayed r;
  r.time.assign(points, 0);
  r.binding.assign(points, kAnchored);
  std::vector<uint32_t> waiting(points, 0);  // in-edges whose source is not placed yet
  for (uint32_t p = 0; p < points; ++p) {
    for (uint32_t e = g.in_begin[p]; e < g.in_begin[p + 1]; ++e) waiting[p] += gap[e] != kEdgeRemoved ? 1 : 0;
    if (IsEnd(p)) ++waiting[p];
  }
  std::vector<uint8_t> placed(points, 0);
  std::vector<uint32_t> ready;
  ready.reserve(points);
  for (uint32_t p = 0; p < points; ++p) {
    if (waiting[p] == 0) ready.push_back(p);
  }
  // The point's time from what is placed of its sources.
  auto place = [&](uint32_t p) {
    int64_t t = std::numeric_limits<int64_t>::min();
    uint32_t by = kAnchored;
    if (IsEnd(p) && placed[p - 1]) {
      t = r.time[p - 1] + duration[NodeOf(p)];
      by = kByDuration;
    }
    for (uint32_t e = g.in_begin[p]; e < g.in_begin[p + 1]; ++e) {
      if (gap[e] == kEdgeRemoved || !placed[g.edges[e].from]) continue;
      const int64_t at = r.time[g.edges[e].from] + gap[e];
      if (at > t) t = at, by = e;
    }
    if (by == kAnchored) t = g.recorded(p);
    r.time[p] = t;
    r.binding[p] = by;
    placed[p] = 1;
  };
  auto release = [&](uint32_t p, auto&& on_ready) {
    for (uint32_t k = g.out_begin[p]; k < g.out_begin[p + 1]; ++k) {
      const uint32_t e = g.out_edges[k];
      if (gap[e] != kEdgeRemoved && --waiting[g.edges[e].to] == 0) on_ready(g.edges[e].to);
    }
    if (!IsEnd(p) && --waiting[p + 1] == 0) on_ready(p + 1);
  };
  size_t done = 0;
  for (size_t head = 0; head < ready.size(); ++head) {
    const uint32_t p = ready[head];
    place(p);
    ++done;
    release(p, [&](uint32_t q) { ready.push_back(q); });
  }
  if (done == points) return r;
  // A cycle: the rest in recorded order, each from what is placed.
  std::vector<uint32_t> rest;
  for (uint32_t p = 0; p < points; ++p) {
    if (!placed[p]) rest.push_back(p);
  }
  std::stable_sort(rest.begin(), rest.end(), [&](uint32_t x, uint32_t y) { return g.recorded(x) < g.recorded(y); });
  r.cyclic = static_cast<int64_t>(rest.size());
  for (const uint32_t p : rest) place(p);
  return r;
}

}  // namespace kscope::analysis::graph
