// The report's critical path (report/critical_path_part.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "analysis/graph/whatif.h"
#include "analysis/names/short_names.h"
#include "analysis/timeline/ranks.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

namespace g = analysis::graph;

namespace {

// The edit a finding's fix implies, scoped to `stage` (empty: the whole run), and whether it
// removes the whole cost the finding names (so its saving bounds what the fix recovers).
std::optional<std::pair<std::string, bool>> EditOf(const analysis::Finding& f, const std::string& stage) {
  const std::string at = stage.empty() ? "" : "@" + stage;
  if (f.kind == "launch_bound") return stage.empty() ? std::pair("launch=0", true) : std::pair("graph" + at, false);
  if (f.kind == "gpu_idle") return std::pair("host" + at + "=0", true);
  if (f.kind == "synchronization") return std::pair("sync" + at + "=0", false);
  if (f.kind == "host_device_copies" || f.kind == "pageable_memory") return std::pair("copies" + at + "=0", true);
  return std::nullopt;
}

// Each finding's worth on the session's main steps, and the findings by it, largest first.
void PriceFindings(const g::WhatIfSession& session, const std::string& stage,
                   std::vector<analysis::Finding>& findings) {
  for (analysis::Finding& f : findings) {
    const auto edit = EditOf(f, stage);
    if (!edit) continue;
    auto parsed = g::ParseEdit(edit->first);
    if (!parsed.ok()) continue;
    auto answer = session.Answer({*parsed});
    if (!answer.ok()) continue;  // nothing it names in the run
    for (const g::StepAnswer& s : answer->steps) {
      if (s.name != answer->primary || s.replayed_ns <= 0) continue;
      f.worth = analysis::FindingWorth{.edit = edit->first,
                                       .steps = s.name,
                                       .step_ns = s.replayed_ns,
                                       .saving_ns = s.replayed_ns - s.predicted_ns,
                                       .saving_pct = 100 * (s.replayed_ns - s.predicted_ns) / s.replayed_ns,
                                       .upper_bound = edit->second};
    }
  }
  std::stable_sort(findings.begin(), findings.end(), [](const analysis::Finding& a, const analysis::Finding& b) {
    return (a.worth ? a.worth->saving_ns : -1) > (b.worth ? b.worth->saving_ns : -1);
  });
}

// What the main steps (the session's primary set) save were kernel `name` twice as fast:
// nothing for a kernel off their critical path (shortening work off the longest path leaves it
// as long), else one replay's.
KernelWorth TwiceAsFast(const g::WhatIfSession& session, const std::string& name, double path_ns) {
  if (path_ns <= 0) return {};
  const g::Edit edit{.text = "kernel:" + name + "=0.5",
                     .target = g::EditTarget::kKernel,
                     .pattern = name,
                     .whole_name = true,
                     .scope = {},
                     .factor = 0.5};
  const auto medians = session.PrimaryMedians({edit});
  if (!medians.ok() || medians->first <= 0) return {};
  const double saving = std::max(0.0, medians->first - medians->second);
  return {.saving_ns = saving, .saving_pct = 100 * saving / medians->first};
}

// A node's name on the drawing: a call's function, a kernel's short name, a copy's or set's kind.
std::string NodeLabel(const g::DependencyGraph& graph, uint32_t node) {
  const g::GraphEvents& e = graph.events;
  if (graph.is_call(node)) return e.function_name[e.function_of(e.calls.name[node])];
  const size_t op = graph.op(node);
  const auto it = std::lower_bound(e.op_name_ids.begin(), e.op_name_ids.end(), e.ops.name[op]);
  const std::string& name = e.op_names[static_cast<size_t>(it - e.op_name_ids.begin())];
  return e.ops.is_kernel[op] != 0 ? analysis::ShortKernelName(name) : name;
}

// The median step's critical path on its lanes (PathDrawing).
std::optional<PathDrawing> DrawMedianStep(const g::WhatIfSession& session) {
  const auto path = session.MedianStepPath();
  if (!path) return std::nullopt;
  const g::DependencyGraph& graph = session.graph();
  const std::vector<int64_t>& rank_pids = session.rank_pids();
  auto rank_of = [&](int64_t global_pid) -> int64_t {
    const auto it = std::find(rank_pids.begin(), rank_pids.end(), global_pid);
    return it == rank_pids.end() ? -1 : static_cast<int64_t>(it - rank_pids.begin());
  };
  // The lanes the path runs on, by rank, then threads before streams.
  std::vector<uint32_t> used;
  for (const g::PathSegment& s : path->pieces) used.push_back(graph.lane[s.node]);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  auto key = [&](uint32_t l) {
    const g::Lane& lane = graph.lanes[l];
    return std::make_tuple(rank_of(lane.global_pid), lane.global_pid, !lane.host, lane.global_tid, lane.device,
                           lane.stream);
  };
  std::sort(used.begin(), used.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  PathDrawing d{.step = static_cast<int64_t>(path->step + 1), .start_ns = path->start, .end_ns = path->end};
  std::map<uint32_t, size_t> index;
  for (const uint32_t l : used) {
    const g::Lane& lane = graph.lanes[l];
    const int64_t rank = rank_of(lane.global_pid);
    std::string name = lane.host ? fmt::format("thread {}", lane.global_tid & 0xFFFFFF)
                                 : fmt::format("GPU {} stream {}", lane.device, lane.stream);
    if (rank_pids.size() > 1) name = fmt::format("rank {}: {}", rank, name);
    index[l] = d.lanes.size();
    d.lanes.push_back({.name = std::move(name), .rank = rank});
  }
  for (const g::PathSegment& s : path->pieces) {
    const size_t lane = index[graph.lane[s.node]];
    std::string part(g::PathPartName(s.part));
    // Waits and the host's own work are the time before their node's start.
    const bool before =
        s.part == g::PathPart::kHost || s.part == g::PathPart::kStreamGap || s.part == g::PathPart::kCrossStream;
    std::string what = (before ? "before " : "") + NodeLabel(graph, s.node);
    if (!d.pieces.empty()) {
      PathDrawing::Piece& last = d.pieces.back();
      if (last.lane == lane && last.part == part && last.what == what && last.end_ns == s.start) {
        last.end_ns = s.end;
        continue;
      }
    }
    d.pieces.push_back(
        {.lane = lane, .start_ns = s.start, .end_ns = s.end, .part = std::move(part), .what = std::move(what)});
  }
  if (d.pieces.size() > PathDrawing::kMaxPieces) {
    // The longest kMaxPieces (of equal lengths, the earliest), kept in time order.
    std::vector<size_t> order(d.pieces.size());
    std::iota(order.begin(), order.end(), size_t{0});
    auto length = [&](size_t i) { return d.pieces[i].end_ns - d.pieces[i].start_ns; };
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return length(x) > length(y); });
    order.resize(PathDrawing::kMaxPieces);
    std::sort(order.begin(), order.end());
    std::vector<PathDrawing::Piece> drawn;
    for (const size_t i : order) drawn.push_back(std::move(d.pieces[i]));
    d.pieces_left_out = static_cast<int64_t>(d.pieces.size() - drawn.size());
    d.pieces = std::move(drawn);
  }
  return d;
}

}  // namespace

Status AddCriticalPath(store::Store& store, const GpuInputs& in, RunReport& out) {
  if (in.rank != nullptr) return Status::Ok();
  g::WhatIfOptions options;
  options.warmup = in.config.stages.warmup;
  options.top_kernels = SIZE_MAX;
  auto session = g::WhatIfSession::Open(store, in.timeline_run, options);
  if (!session.ok()) return session.error();
  PriceFindings(*session, "", out.timeline.diagnosis.findings);
  for (StagePart& stage : out.stages) PriceFindings(*session, stage.display_name, stage.findings);
  if (out.iterations) PriceFindings(*session, "", out.iterations->findings);
  auto answer = session->Answer({});
  if (!answer.ok()) return answer.error();
  // The set the session answers for first (PrimaryStepSet): the answer names it.
  const g::StepAnswer* s = nullptr;
  for (const g::StepAnswer& a : answer->steps) {
    if (a.name == answer->primary) s = &a;
  }
  if (s == nullptr || s->typical_steps == 0) return Status::Ok();
  CriticalPathPart p;
  p.steps = s->name;
  p.marked_by = s->how;
  p.steps_count = s->steps;
  p.typical_steps = s->typical_steps;
  p.median_step_ns = s->recorded_ns;
  p.typical_step_ns = s->typical_recorded_ns;
  for (size_t k = 0; k < g::kPathParts; ++k) {
    if (s->before[k] > 0) p.parts.emplace_back(std::string(g::PathPartName(static_cast<g::PathPart>(k))), s->before[k]);
  }
  for (const g::RankOnPath& r : s->ranks) {
    CriticalPathPart::Rank row{.rank = r.rank, .parts = {}};
    for (size_t k = 0; k < g::kPathParts; ++k) {
      if (r.parts[k] > 0) row.parts.emplace_back(std::string(g::PathPartName(static_cast<g::PathPart>(k))), r.parts[k]);
    }
    p.ranks.push_back(std::move(row));
  }
  const double n = static_cast<double>(std::max<int64_t>(s->typical_steps, 1));
  std::map<std::string, const g::KernelOnPath*> by_name;
  for (const auto& k : s->kernels) {
    by_name[k.name] = &k;
    if (p.kernels.size() < 10 && k.path_ns > 0) {
      p.kernels.push_back({.name = k.name,
                           .launches = static_cast<int64_t>(static_cast<double>(k.launches) / n + 0.5),
                           .gpu_ns = k.gpu_ns,
                           .path_ns = k.path_ns});
    }
  }
  for (size_t k = 0; k < g::kPathParts; ++k) {
    if (static_cast<g::PathPart>(k) != g::PathPart::kKernel && s->before[k] > p.held_by_ns) {
      p.held_by = std::string(g::PathPartName(static_cast<g::PathPart>(k)));
      p.held_by_ns = s->before[k];
    }
  }
  for (TopKernel& k : out.top_kernels) {
    const auto it = by_name.find(k.name);
    if (it == by_name.end() || it->second->gpu_ns <= 0) continue;
    k.path_pct = 100 * it->second->path_ns / it->second->gpu_ns;
    k.worth_2x = TwiceAsFast(*session, k.name, it->second->path_ns);
  }
  auto on_path = [](const TopKernel& k) { return static_cast<double>(k.total_ns) * k.path_pct.value_or(0) / 100; };
  std::stable_sort(out.top_kernels.begin(), out.top_kernels.end(),
                   [&](const TopKernel& a, const TopKernel& b) { return on_path(a) > on_path(b); });
  p.drawing = DrawMedianStep(*session);
  out.critical_path = std::move(p);
  return Status::Ok();
}

}  // namespace kscope::report::parts
