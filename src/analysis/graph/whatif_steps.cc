// The step sets of a run: its repeating NVTX stages and its loop's iterations (steps.h).
#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/graph/whatif.h"
#include "analysis/iterations/iterations.h"
#include "analysis/stages/stage_steady.h"
#include "analysis/stages/stages.h"
#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/rank_selection.h"

namespace kscope::analysis::graph {

namespace {

constexpr int64_t kThreadBits = 0xFFFFFF;

// `windows` (start, end, process) merged per process.
std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> Spans(
    const std::vector<std::tuple<int64_t, int64_t, int64_t>>& windows) {
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> out;
  for (const auto& [start, end, pid] : windows) out[pid].emplace_back(start, end);
  for (auto& [pid, w] : out) {
    std::sort(w.begin(), w.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (const auto& s : w) {
      if (!merged.empty() && s.first <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, s.second);
      } else {
        merged.push_back(s);
      }
    }
    w = std::move(merged);
  }
  return out;
}

// The calls made while one of `windows` (start, end, process) was open on their process, and
// the operations they launched.
std::vector<uint8_t> Inside(const DependencyGraph& g, std::vector<std::tuple<int64_t, int64_t, int64_t>> windows) {
  std::vector<uint8_t> inside(g.nodes(), 0);
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> by_process;
  for (const auto& [start, end, pid] : windows) by_process[pid].emplace_back(start, end);
  for (auto& [pid, w] : by_process) std::sort(w.begin(), w.end());
  const auto& c = g.events.calls;
  for (uint32_t i = 0; i < g.calls; ++i) {
    const auto it = by_process.find(c.global_tid[i] & ~kThreadBits);
    if (it == by_process.end()) continue;
    const auto& w = it->second;
    auto at = std::upper_bound(w.begin(), w.end(), std::make_pair(c.start[i], INT64_MAX));
    // Windows nest or follow each other: the ones starting before the call, latest first.
    for (int look = 0; at != w.begin() && look < 64; ++look) {
      --at;
      if (at->second >= c.start[i]) {
        inside[i] = 1;
        break;
      }
    }
  }
  for (uint32_t op = 0; op < g.ops; ++op) {
    const uint32_t by = g.launcher[op];
    if (by != kNoLauncher && inside[by] != 0) inside[g.calls + op] = 1;
  }
  return inside;
}

void StageSets(const DependencyGraph& g, const NsysEvents& events, const std::vector<Stage>& stages, int64_t warmup,
               std::vector<StepSet>& out) {
  // Each range's thread, by its start, end and process (two ranges of one process that open at
  // the same nanosecond on two threads differ by their ends, or are the same range twice).
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> thread_of;
  const auto& n = events.nvtx;
  std::map<std::pair<int64_t, int64_t>, int64_t> thread_at;  // by start and process alone: ranges never closed
  for (size_t r = 0; r < n.start.size(); ++r) {
    thread_of[{n.start[r], n.end[r], n.global_tid[r] & ~kThreadBits}] = n.global_tid[r];
    thread_at[{n.start[r], n.global_tid[r] & ~kThreadBits}] = n.global_tid[r];
  }
  std::vector<std::pair<int64_t, StepSet>> sets;  // by the stage's total range time
  for (const Stage& stage : stages) {
    if (stage.torch_op || stage.library || stage.instance_list.empty()) continue;
    const StageSteady steady = SteadyState(stage, warmup);
    StepSet set;
    set.source = StepSource::kStage;
    set.name = DisplayName(stage);
    set.warmup = steady.warmup;
    // A stage inside another runs from its range's start to its end; an outermost one from one
    // instance's start to the next's (the period of the loop it marks).
    const bool nested = stage.parent >= 0;
    set.how = nested ? "NVTX range" : "NVTX range, start to next start";
    std::map<int64_t, std::vector<std::pair<StepMarker, int64_t>>> per_thread;  // tid -> (marker, pid)
    std::vector<std::tuple<int64_t, int64_t, int64_t>> windows;
    for (size_t i = 0; i < stage.instance_list.size(); ++i) {
      const StageInstance& inst = stage.instance_list[i];
      const int64_t range_end = inst.start + inst.range_ns;
      windows.emplace_back(inst.start, range_end, inst.global_pid);
      if (steady.counted[i] == 0) continue;
      std::optional<int64_t> tid;
      if (const auto it = thread_of.find({inst.start, range_end, inst.global_pid}); it != thread_of.end()) {
        tid = it->second;
      } else if (const auto at = thread_at.find({inst.start, inst.global_pid}); at != thread_at.end()) {
        tid = at->second;
      }
      if (!tid) continue;
      const auto begin = HostMarker(g, *tid, inst.start);
      // A range inside which its thread makes no CUDA call has nothing the graph can time.
      if (!begin || (nested && g.recorded(begin->point) > range_end)) continue;
      if (nested) {
        if (auto end = HostEndMarker(g, *tid, range_end);
            end && g.recorded(end->point) - end->offset > g.recorded(begin->point) - begin->offset) {
          set.steps.push_back({*begin, *end, inst.global_pid});
        }
      } else {
        per_thread[*tid].emplace_back(*begin, inst.global_pid);
      }
    }
    for (const auto& [tid, markers] : per_thread) {
      for (size_t k = 1; k < markers.size(); ++k)
        set.steps.push_back({markers[k - 1].first, markers[k].first, markers[k].second});
    }
    if (stage.instance_list.size() < 3 || set.steps.size() < 2) set.steps.clear();  // a scope for edits only
    set.spans = Spans(windows);
    set.inside = Inside(g, std::move(windows));
    sets.emplace_back(stage.range_ns, std::move(set));
  }
  std::stable_sort(sets.begin(), sets.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (auto& [ns, set] : sets) out.push_back(std::move(set));
}

Status IterationSet(store::Store& store, int64_t run_id, const DependencyGraph& g, const NsysEvents& events,
                    std::vector<StepSet>& out) {
  auto input = LoadIterationInput(store, run_id, events);
  if (!input.ok()) return input.error();
  const IterationLoop loop = FindIterations(*input);
  if (loop.iterations.size() < 3) return Status::Ok();
  StepSet set;
  set.source = StepSource::kIterations;
  set.name = "iteration";
  set.how = loop.boundary == IterationBoundary::kNone ? IterationSourceName(loop.source)
                                                      : IterationBoundaryName(loop.boundary);
  std::vector<StepMarker> markers;
  for (const Iteration& it : loop.iterations) {
    const auto row = static_cast<uint32_t>(loop.order[static_cast<size_t>(it.first_kernel)]);
    markers.push_back({StartOf(static_cast<uint32_t>(g.calls + row)), 0});
  }
  for (size_t k = 1; k < markers.size(); ++k) {
    set.steps.push_back({markers[k - 1], markers[k], g.events.ops.global_pid[g.op(NodeOf(markers[k - 1].point))]});
  }
  std::vector<std::tuple<int64_t, int64_t, int64_t>> windows;
  for (const Iteration& it : loop.iterations) windows.emplace_back(it.start, it.end, set.steps.front().global_pid);
  set.spans = Spans(windows);
  set.inside = Inside(g, std::move(windows));
  out.push_back(std::move(set));
  return Status::Ok();
}

}  // namespace

std::optional<StepMarker> HostMarker(const DependencyGraph& g, int64_t global_tid, int64_t time) {
  for (size_t l = 0; l < g.lanes.size(); ++l) {
    if (!g.lanes[l].host || g.lanes[l].global_tid != global_tid) continue;
    const auto& nodes = g.lane_nodes[l];
    auto it = std::lower_bound(nodes.begin(), nodes.end(), time,
                               [&](uint32_t n, int64_t t) { return g.recorded(StartOf(n)) < t; });
    for (; it != nodes.end(); ++it) {
      if (g.nested[*it] == 0) return StepMarker{StartOf(*it), g.recorded(StartOf(*it)) - time};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

int64_t Overlap(const std::vector<std::pair<int64_t, int64_t>>& spans, int64_t from, int64_t to) {
  int64_t shared = 0;
  auto it = std::upper_bound(spans.begin(), spans.end(), std::make_pair(from, INT64_MAX));
  if (it != spans.begin()) --it;
  for (; it != spans.end() && it->first < to; ++it)
    shared += std::max<int64_t>(0, std::min(to, it->second) - std::max(from, it->first));
  return shared;
}

std::optional<StepMarker> HostEndMarker(const DependencyGraph& g, int64_t global_tid, int64_t time) {
  for (size_t l = 0; l < g.lanes.size(); ++l) {
    if (!g.lanes[l].host || g.lanes[l].global_tid != global_tid) continue;
    const auto& nodes = g.lane_nodes[l];
    auto it = std::upper_bound(nodes.begin(), nodes.end(), time,
                               [&](int64_t t, uint32_t n) { return t < g.recorded(StartOf(n)); });
    while (it != nodes.begin()) {
      --it;
      if (g.nested[*it] == 0 && g.recorded(EndOf(*it)) <= time) {
        return StepMarker{EndOf(*it), g.recorded(EndOf(*it)) - time};
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
}

Result<std::vector<StepSet>> FindStepSets(store::Store& store, int64_t run_id, const DependencyGraph& g,
                                          int64_t warmup) {
  auto events = LoadNsysEvents(store, run_id);
  if (!events.ok()) return events.error();
  auto stages = ComputeStages(store, run_id, &*events);
  if (!stages.ok()) return stages.error();
  std::vector<StepSet> sets;
  StageSets(g, *events, *stages, warmup, sets);
  KSCOPE_RETURN_IF_ERROR(IterationSet(store, run_id, g, *events, sets));
  return sets;
}

}  // namespace kscope::analysis::graph
