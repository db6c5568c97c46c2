#include "analysis/stages/nvtx_nesting.h"

#include <algorithm>
#include <numeric>

namespace kscope::analysis {

NvtxNesting ComputeNvtxNesting(const std::vector<NvtxInterval>& ranges) {
  const size_t n = ranges.size();
  NvtxNesting out{std::vector<int64_t>(n, -1), std::vector<int64_t>(n, -1)};
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) {
    if (ranges[i].nests) order.push_back(i);
  }
  // By thread, then start, longest first: every possible parent comes before its child,
  // except a range identical to the child, which is looked for separately.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = ranges[a];
    const auto& y = ranges[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.start != y.start) return x.start < y.start;
    if (x.end != y.end) return x.end > y.end;
    return a < b;
  });
  std::vector<size_t> active;  // earlier ranges of this thread that may still contain later ones
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t c = order[k];
    const auto& child = ranges[c];
    if (k > 0 && ranges[order[k - 1]].thread != child.thread) active.clear();
    std::erase_if(active, [&](size_t p) { return ranges[p].end < child.start; });
    int64_t best = -1;
    int64_t best_tightness = 0;
    auto consider = [&](size_t p) {
      const auto& par = ranges[p];
      if (p == c || par.start > child.start || par.end < child.end) return;
      const int64_t tightness = (child.start - par.start) + (par.end - child.end);
      if (best < 0 || tightness < best_tightness) {
        best = static_cast<int64_t>(p);
        best_tightness = tightness;
      }
    };
    for (size_t p : active) consider(p);
    for (size_t j = k + 1; j < order.size(); ++j) {  // identical ranges contain each other
      const auto& r = ranges[order[j]];
      if (r.thread != child.thread || r.start != child.start || r.end != child.end) break;
      consider(order[j]);
    }
    out.parent[c] = best;
    active.push_back(c);
  }
  // Depth by walking up; ranges in a cycle (identical ranges) and below one stay at -1.
  std::vector<int8_t> done(n, 0);
  std::vector<int8_t> on_path(n, 0);
  for (size_t i : order) {
    std::vector<size_t> path;
    size_t cur = i;
    int64_t base;  // depth of the range above path.back(); -1 for the top; -2 for a cycle
    while (true) {
      if (done[cur] != 0) {
        base = out.depth[cur] < 0 ? -2 : out.depth[cur];
        break;
      }
      if (on_path[cur] != 0) {
        base = -2;
        break;
      }
      on_path[cur] = 1;
      path.push_back(cur);
      if (out.parent[cur] < 0) {
        base = -1;
        break;
      }
      cur = static_cast<size_t>(out.parent[cur]);
    }
    for (size_t k = path.size(); k-- > 0;) {
      const size_t r = path[k];
      out.depth[r] = base == -2 ? -1 : base + static_cast<int64_t>(path.size() - k);
      done[r] = 1;
    }
  }
  return out;
}

}  // namespace kscope::analysis
