// Thread-wake edges: a host thread that waited (a gap of kIdleNs or more between two of its
// calls) and resumed just after another thread of its process did something (ended a CUDA call,
// opened or closed an NVTX range) resumed because of it. nsys records no edge between threads
// (no futex or condition variable is tied to a call), so the nearest such event stands for it.
#include <algorithm>
#include <map>

#include "analysis/graph/graph_build.h"

namespace kscope::analysis::graph {

namespace {

constexpr int64_t kIdleNs = 200'000;
constexpr int64_t kWakeNs = 1'000'000;
constexpr int64_t kThreadBits = 0xFFFFFF;

struct Signal {
  int64_t time;
  int64_t tid;
};

}  // namespace

void ThreadWakes(GraphBuild& b) {
  DependencyGraph& g = b.g;
  // Per process: its host lanes, and what its threads did, by time.
  std::map<int64_t, std::vector<uint32_t>> lanes;
  for (uint32_t l = 0; l < g.lanes.size(); ++l) {
    if (g.lanes[l].host) lanes[g.lanes[l].global_pid].push_back(l);
  }
  for (const auto& [pid, host] : lanes) {
    if (host.size() < 2) continue;
    std::vector<Signal> signals;
    for (const uint32_t l : host) {
      for (const uint32_t n : g.lane_nodes[l]) {
        if (g.nested[n] == 0) signals.push_back({g.recorded(EndOf(n)), g.lanes[l].global_tid});
      }
    }
    const auto& m = g.events.marks;
    for (size_t i = 0; i < m.time.size(); ++i) {
      if ((m.global_tid[i] & ~kThreadBits) == pid) signals.push_back({m.time[i], m.global_tid[i]});
    }
    std::sort(signals.begin(), signals.end(), [](const Signal& x, const Signal& y) { return x.time < y.time; });
    // Each thread's outer calls, to find a thread's last call before a signal.
    std::map<int64_t, std::vector<uint32_t>> outer;
    for (const uint32_t l : host) {
      for (const uint32_t n : g.lane_nodes[l]) {
        if (g.nested[n] == 0) outer[g.lanes[l].global_tid].push_back(n);
      }
    }
    for (const uint32_t l : host) {
      const int64_t tid = g.lanes[l].global_tid;
      const auto& calls = outer[tid];
      for (size_t k = 1; k < calls.size(); ++k) {
        const int64_t start = g.recorded(StartOf(calls[k]));
        if (start - g.recorded(EndOf(calls[k - 1])) < kIdleNs) continue;
        // The other threads' latest signal before the call, and that thread's last call then.
        auto it = std::upper_bound(signals.begin(), signals.end(), start,
                                   [](int64_t t, const Signal& s) { return t < s.time; });
        while (it != signals.begin()) {
          --it;
          if (it->time < start - kWakeNs) break;
          if (it->tid == tid) continue;
          const auto& theirs = outer[it->tid];
          auto last = std::upper_bound(theirs.begin(), theirs.end(), it->time,
                                       [&](int64_t t, uint32_t n) { return t < g.recorded(EndOf(n)); });
          if (last == theirs.begin()) break;
          const uint32_t from = EndOf(*(last - 1));
          b.Add(from, StartOf(calls[k]), EdgeKind::kThreadWake, start - g.recorded(from));
          break;
        }
      }
    }
  }
}

}  // namespace kscope::analysis::graph
