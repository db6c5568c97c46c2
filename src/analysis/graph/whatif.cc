#include "analysis/graph/whatif.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "analysis/graph/graph_events.h"
#include "analysis/graph/replay.h"
#include "analysis/timeline/ranks.h"

namespace kscope::analysis::graph {

namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The critical path of `step` in replay `r`, its time added to `parts` by part and, for the
// operations on it, to `on_path` by name id.
// `by_process`, when given, gets the same time by the process (rank) each piece ran in.
void AddPath(const DependencyGraph& g, const Replayed& r, const Step& step, PartTimes& parts,
             std::unordered_map<int64_t, double>* on_path, std::map<int64_t, PartTimes>* by_process = nullptr) {
  const int64_t from = step.begin.At(r), until = step.end.At(r);
  for (const PathSegment& s : WalkBack(g, r, step.end.point, from)) {
    const int64_t end = std::min(s.end, until);
    if (end <= s.start) continue;
    parts[static_cast<size_t>(s.part)] += static_cast<double>(end - s.start);
    if (by_process != nullptr) {
      (*by_process)[g.lanes[g.lane[s.node]].global_pid][static_cast<size_t>(s.part)] +=
          static_cast<double>(end - s.start);
    }
    const bool work = s.part == PathPart::kKernel || s.part == PathPart::kCommunication || s.part == PathPart::kCopy;
    if (on_path != nullptr && work && !g.is_call(s.node)) {
      (*on_path)[g.events.ops.name[g.op(s.node)]] += static_cast<double>(end - s.start);
    }
  }
}

// `unscaled`: the recording's replay; `recorded`: the baseline the edits start from (the same,
// or with the host's time scaled to a measured step); `edited`: with the edits.
StepAnswer Answer(const DependencyGraph& g, const StepSet& set, const Replayed& unscaled, const Replayed& recorded,
                  const Replayed& edited, const WhatIfOptions& options, const std::vector<int64_t>& rank_pid) {
  StepAnswer a;
  a.name = set.name;
  a.how = set.how;
  a.source = set.source;
  a.steps = static_cast<int64_t>(set.steps.size());
  std::vector<double> rec, rep, pred, fidelity;
  for (const Step& s : set.steps) {
    rec.push_back(
        static_cast<double>((g.recorded(s.end.point) - s.end.offset) - (g.recorded(s.begin.point) - s.begin.offset)));
    rep.push_back(static_cast<double>(s.end.At(recorded) - s.begin.At(recorded)));
    fidelity.push_back(static_cast<double>(s.end.At(unscaled) - s.begin.At(unscaled)));
    pred.push_back(static_cast<double>(s.end.At(edited) - s.begin.At(edited)));
  }
  a.recorded_ns = Median(rec);
  a.replayed_ns = Median(rep);
  a.predicted_ns = Median(pred);
  a.replay_error_pct = a.recorded_ns > 0 ? 100 * (Median(fidelity) - a.recorded_ns) / a.recorded_ns : 0;
  // The critical path of the typical steps: those within half and twice the median (a step
  // that held a one-time stall, a compilation, a checkpoint, would swamp a mean).
  std::unordered_map<int64_t, double> on_path;
  std::map<int64_t, PartTimes> by_process;
  std::vector<const Step*> typical;
  for (size_t k = 0; k < set.steps.size(); ++k) {
    if (rec[k] < a.recorded_ns / 2 || rec[k] > 2 * a.recorded_ns) continue;
    typical.push_back(&set.steps[k]);
    AddPath(g, recorded, set.steps[k], a.before, &on_path, &by_process);
    AddPath(g, edited, set.steps[k], a.after, nullptr);
    a.typical_recorded_ns += rec[k];
    a.typical_predicted_ns += pred[k];
  }
  a.typical_steps = static_cast<int64_t>(typical.size());
  const double n = static_cast<double>(std::max<int64_t>(a.typical_steps, 1));
  for (double& v : a.before) v /= n;
  for (double& v : a.after) v /= n;
  a.typical_recorded_ns /= n;
  a.typical_predicted_ns /= n;
  // A job of several ranks: which rank the path runs through, and in what.
  if (rank_pid.size() > 1) {
    for (size_t rank = 0; rank < rank_pid.size(); ++rank) {
      RankOnPath r{.rank = static_cast<int64_t>(rank)};
      if (const auto it = by_process.find(rank_pid[rank]); it != by_process.end()) {
        for (size_t p = 0; p < kPathParts; ++p) r.parts[p] = it->second[p] / n;
      }
      a.ranks.push_back(r);
    }
  }
  // Each kernel's GPU time in the steps (the recording's: each launch's overlap with a step,
  // on every rank of a job, since the path may run through any of them), beside its time on
  // the path.
  const auto& o = g.events.ops;
  std::vector<uint32_t> kernels;
  int64_t longest = 0;
  for (uint32_t op = 0; op < g.ops; ++op) {
    if (o.is_kernel[op] == 0) continue;
    kernels.push_back(op);
    longest = std::max(longest, o.end[op] - o.start[op]);
  }
  std::sort(kernels.begin(), kernels.end(), [&](uint32_t x, uint32_t y) { return o.start[x] < o.start[y]; });
  std::unordered_map<int64_t, std::pair<double, int64_t>> gpu;  // name id -> (ns, launches)
  for (const Step* step : typical) {
    const Step& s = *step;
    const int64_t from = g.recorded(s.begin.point) - s.begin.offset, to = g.recorded(s.end.point) - s.end.offset;
    auto it = std::lower_bound(kernels.begin(), kernels.end(), from - longest,
                               [&](uint32_t x, int64_t t) { return o.start[x] < t; });
    for (; it != kernels.end() && o.start[*it] < to; ++it) {
      const int64_t shared = std::min(o.end[*it], to) - std::max(o.start[*it], from);
      if (shared <= 0) continue;
      auto& [ns, launches] = gpu[o.name[*it]];
      ns += static_cast<double>(shared);
      ++launches;
    }
  }
  for (const auto& [name, t] : gpu) {
    const auto it = std::lower_bound(g.events.op_name_ids.begin(), g.events.op_name_ids.end(), name);
    const auto path = on_path.find(name);
    a.kernels.push_back({g.events.op_names[static_cast<size_t>(it - g.events.op_name_ids.begin())], t.first / n,
                         path == on_path.end() ? 0 : path->second / n, t.second});
  }
  std::sort(a.kernels.begin(), a.kernels.end(), [](const KernelOnPath& x, const KernelOnPath& y) {
    if (x.path_ns != y.path_ns) return x.path_ns > y.path_ns;
    if (x.gpu_ns != y.gpu_ns) return x.gpu_ns > y.gpu_ns;
    return x.name < y.name;
  });
  if (a.kernels.size() > options.top_kernels) a.kernels.resize(options.top_kernels);
  return a;
}

std::vector<std::string> NotesOf(const DependencyGraph& g) {
  std::vector<std::string> notes;
  if (g.calls == 0) {
    notes.push_back(
        "the capture has no CUDA API calls: no launch, host or synchronization dependency is known, "
        "and every operation is placed by its stream alone; capture with nsys profile --trace=cuda, or "
        "torch.profiler with ProfilerActivity.CUDA");
  } else if (g.gaps.ops_without_launch > 0) {
    notes.push_back(
        fmt::format("{} GPU operations have no launching call in the capture (launched before it "
                    "started, or by a process it did not trace): they follow their stream alone",
                    g.gaps.ops_without_launch));
  }
  if (g.gaps.backward_edges > 0) {
    notes.push_back(
        fmt::format("{} dependencies run backward in time (the host's and the GPU's clocks apart): "
                    "replayed as recorded",
                    g.gaps.backward_edges));
  }
  if (g.gaps.unmatched_collectives > 0) {
    notes.push_back(
        fmt::format("{} collective kernels could not be matched across the ranks (their streams differ "
                    "in order or count): their waits for peers are taken as recorded",
                    g.gaps.unmatched_collectives));
  }
  return notes;
}

// The host's own time scaled by `f`: each call's duration and the gaps of host order, nested
// calls and thread wakes.
void ScaleHost(const DependencyGraph& g, double f, std::vector<int64_t>& duration, std::vector<int64_t>& gap) {
  duration = g.duration;
  gap = GapsOf(g);
  for (uint32_t c = 0; c < g.calls; ++c) duration[c] = static_cast<int64_t>(static_cast<double>(duration[c]) * f);
  for (size_t e = 0; e < g.edges.size(); ++e) {
    const EdgeKind k = g.edges[e].kind;
    if (k == EdgeKind::kHostOrder || k == EdgeKind::kNested || k == EdgeKind::kThreadWake) {
      gap[e] = static_cast<int64_t>(static_cast<double>(gap[e]) * f);
    }
  }
}

double MedianStep(const StepSet& set, const Replayed& r) {
  std::vector<double> v;
  for (const Step& s : set.steps) v.push_back(static_cast<double>(s.end.At(r) - s.begin.At(r)));
  return Median(v);
}

// The host scale whose replay gives `set` a median step of `measured` (by bisection: the step
// grows with the host's time); `duration` and `gap` are left scaled by it.
double FitHostScale(const DependencyGraph& g, const StepSet& set, double measured, std::vector<int64_t>& duration,
                    std::vector<int64_t>& gap) {
  double lo = 0, hi = 2;
  for (int i = 0; i < 30; ++i) {
    const double mid = (lo + hi) / 2;
    ScaleHost(g, mid, duration, gap);
    (MedianStep(set, Replay(g, duration, gap)) < measured ? lo : hi) = mid;
  }
  ScaleHost(g, (lo + hi) / 2, duration, gap);
  return (lo + hi) / 2;
}

}  // namespace

const StepSet* PrimaryStepSet(const std::vector<StepSet>& sets) {
  for (const StepSet& s : sets) {
    if (s.source == StepSource::kStage && !s.steps.empty() && s.how.find("next start") != std::string::npos) return &s;
  }
  for (const StepSet& s : sets) {
    if (s.source == StepSource::kIterations && !s.steps.empty()) return &s;
  }
  for (const StepSet& s : sets) {
    if (!s.steps.empty()) return &s;
  }
  return nullptr;
}

size_t MedianStepIndex(const DependencyGraph& g, const StepSet& set) {
  auto recorded = [&](const StepMarker& m) { return g.recorded(m.point) - m.offset; };
  std::vector<size_t> order(set.steps.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Step &x = set.steps[a], &y = set.steps[b];
    return recorded(x.end) - recorded(x.begin) < recorded(y.end) - recorded(y.begin);
  });
  return order[(order.size() - 1) / 2];
}

Result<std::pair<double, double>> WhatIfSession::PrimaryMedians(const std::vector<Edit>& edits) const {
  if (primary_ == nullptr) return Error{"", "the run has no steps to answer for", "kscope whatif RUN says why"};
  std::vector<int64_t> duration = duration_, gap = gap_;
  for (const Edit& e : edits) {
    auto m = ApplyEdit(*g_, sets_, e, rank_pid_, duration, gap);
    if (!m.ok()) return m.error();
  }
  return std::pair(MedianStep(*primary_, *baseline_), MedianStep(*primary_, Replay(*g_, duration, gap)));
}

std::optional<StepPath> WhatIfSession::MedianStepPath() const {
  if (primary_ == nullptr || primary_->steps.empty()) return std::nullopt;
  const DependencyGraph& g = *g_;
  StepPath path{.set = primary_, .step = MedianStepIndex(g, *primary_), .start = 0, .end = 0, .pieces = {}};
  const Step& step = primary_->steps[path.step];
  path.start = step.begin.At(*unscaled_);
  path.end = step.end.At(*unscaled_);
  for (PathSegment s : WalkBack(g, *unscaled_, step.end.point, path.start)) {
    s.start = std::max(s.start, path.start);
    s.end = std::min(s.end, path.end);
    if (s.end > s.start) path.pieces.push_back(s);
  }
  return path;
}

Result<WhatIfSession> WhatIfSession::Open(store::Store& store, int64_t run_id, const WhatIfOptions& options) {
  auto events = LoadGraphEvents(store, run_id);
  if (!events.ok()) return events.error();
  WhatIfSession s;
  s.run_id_ = run_id;
  s.options_ = options;
  s.g_ = std::make_unique<DependencyGraph>(BuildGraph(std::move(*events)));
  const DependencyGraph& g = *s.g_;
  auto sets = FindStepSets(store, run_id, g, options.warmup);
  if (!sets.ok()) return sets.error();
  s.sets_ = std::move(*sets);
  auto ranks = ReadRanks(store, run_id);
  if (!ranks.ok()) return ranks.error();
  for (const RunRank& r : *ranks) s.rank_pid_.push_back(r.global_pid);
  s.primary_ = PrimaryStepSet(s.sets_);
  if (!options.steps.empty()) {
    s.primary_ = nullptr;
    std::string names;
    for (const StepSet& set : s.sets_) {
      if (set.steps.empty()) continue;
      if (set.name == options.steps) s.primary_ = &set;
      names += (names.empty() ? "" : ", ") + set.name;
    }
    if (s.primary_ == nullptr) {
      return Error{"", fmt::format("run {} has no steps '{}'", run_id, options.steps),
                   names.empty() ? "the run has no steps to answer for" : "its steps: " + names};
    }
  }
  s.duration_ = g.duration;
  s.gap_ = GapsOf(g);
  if (options.measured_step_ns) {
    if (s.primary_ == nullptr) return Error{"", "no steps to fit the measured step to", "leave --step-ms out"};
    s.host_scale_ = FitHostScale(g, *s.primary_, *options.measured_step_ns, s.duration_, s.gap_);
  }
  s.unscaled_ = std::make_unique<Replayed>(Replay(g));
  s.baseline_ = std::make_unique<Replayed>(options.measured_step_ns ? Replay(g, s.duration_, s.gap_) : *s.unscaled_);
  return s;
}

Result<WhatIfAnswer> WhatIfSession::Answer(const std::vector<Edit>& edits) const {
  const DependencyGraph& g = *g_;
  WhatIfAnswer answer;
  answer.run_id = run_id_;
  answer.calls = g.calls;
  answer.ops = g.ops;
  answer.edges_by_kind = g.edges_by_kind;
  answer.gaps = g.gaps;
  if (primary_ != nullptr) answer.primary = primary_->name;
  if (host_scale_) {
    answer.host_scale = host_scale_;
    answer.calibrated_to_ns = options_.measured_step_ns;
  }
  std::vector<int64_t> duration = duration_, gap = gap_;
  for (const Edit& e : edits) {
    auto m = ApplyEdit(g, sets_, e, rank_pid_, duration, gap);
    if (!m.ok()) return m.error();
    answer.edits.push_back(*m);
  }
  const Replayed edited = edits.empty() ? *baseline_ : Replay(g, duration, gap);
  answer.cyclic = std::max({unscaled_->cyclic, baseline_->cyclic, edited.cyclic});
  for (const StepSet& set : sets_) {
    if (!set.steps.empty()) {
      answer.steps.push_back(graph::Answer(g, set, *unscaled_, *baseline_, edited, options_, rank_pid_));
    }
  }
  answer.notes = NotesOf(g);
  if (answer.steps.empty()) {
    answer.notes.push_back(
        "the run has no steps to answer for: no NVTX stage repeats three times or more and no "
        "loop of repeated kernels was found");
  }
  return answer;
}

Result<WhatIfAnswer> AnswerWhatIf(store::Store& store, int64_t run_id, const std::vector<Edit>& edits,
                                  const WhatIfOptions& options) {
  auto session = WhatIfSession::Open(store, run_id, options);
  if (!session.ok()) return session.error();
  return session->Answer(edits);
}

}  // namespace kscope::analysis::graph
