#include "analysis/timeline/rank_figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/names/communication.h"
#include "analysis/stages/stage_steady.h"
#include "analysis/timeline/duration_stats.h"
#include "analysis/timeline/intervals.h"
#include "analysis/timeline/rank_kernels.h"

namespace kscope::analysis {

namespace {

bool IsStep(const Stage& s) { return s.depth == 0 && !s.torch_op && !s.library; }

// Per stage (as `stages` orders them): 1 for each of a top-level stage's instances after its
// process's warm-up, by the stages' own rule (SteadyState's `counted`); empty for the others.
std::vector<std::vector<char>> SteadyOfSteps(const std::vector<Stage>& stages, int64_t warmup) {
  std::vector<std::vector<char>> out(stages.size());
  for (size_t s = 0; s < stages.size(); ++s) {
    if (IsStep(stages[s])) out[s] = SteadyState(stages[s], warmup).counted;
  }
  return out;
}

// Per kernel row: 1 when `step` launched it in a steady instance (`counted`); an instance's
// kernels are those of the process that opened it.
std::vector<char> SteadyStepRows(const NsysEvents& e, const Stage& step, const std::vector<char>& counted) {
  std::vector<char> steady(e.kernels.start.size(), 0);
  for (size_t i = 0; i < step.kernel_rows.size(); ++i) {
    if (counted[static_cast<size_t>(step.kernel_instance[i])] != 0)
      steady[static_cast<size_t>(step.kernel_rows[i])] = 1;
  }
  return steady;
}

// The top-level stage with the most time: the job's step (nullptr when it has none).
const Stage* StepStage(const std::vector<Stage>& stages) {
  const Stage* step = nullptr;
  for (const Stage& st : stages) {
    if (IsStep(st) && (step == nullptr || st.range_ns > step->range_ns)) step = &st;
  }
  return step;
}

// Per top-level stage the rank opened: its instances, and the median wall time of those after
// its warm-up (`steady`: SteadyOfSteps).
std::vector<RankStageTime> StageTimes(int64_t global_pid, const std::vector<Stage>& stages,
                                      const std::vector<std::vector<char>>& steady) {
  std::vector<RankStageTime> out;
  for (size_t s = 0; s < stages.size(); ++s) {
    if (!IsStep(stages[s])) continue;
    RankStageTime t;
    std::vector<int64_t> walls;
    for (size_t i = 0; i < stages[s].instance_list.size(); ++i) {
      const StageInstance& in = stages[s].instance_list[i];
      if (in.global_pid != global_pid) continue;
      ++t.instances;
      if (steady[s][i] != 0) walls.push_back(in.wall_ns());
    }
    if (t.instances == 0) continue;
    t.stage = DisplayName(stages[s]);
    t.steady = static_cast<int64_t>(walls.size());
    t.median_wall_ns = ComputeStats(walls).median;
    out.push_back(std::move(t));
  }
  return out;
}

std::string Ms(double ns) { return fmt::format("{:.2f} ms", ns / 1e6); }

// `step_ns`: the straggler's steady step (median wall time; 0 when unknown).
std::string Advice(const Straggler& s, double step_ns) {
  const bool per_step = s.steps > 0;
  const std::string unit = per_step ? fmt::format(" per {}", s.step_stage) : std::string(" in all");
  const double late = per_step ? s.late_per_step_ns : static_cast<double>(s.late_ns);
  if (per_step && step_ns > 0 && late < 0.05 * step_ns && s.extra_compute_per_step_ns < 0.05 * step_ns) {
    return fmt::format(
        "the ranks are balanced: rank {} reaches its collectives {} later{}, {:.1f}% of its steady {} ({}), with "
        "as much compute as the others; no rank holds the job back",
        s.rank, Ms(late), unit, 100.0 * late / step_ns, s.step_stage, Ms(step_ns));
  }
  if (s.extra_compute_per_step_ns > 0 && s.extra_compute_per_step_ns >= 0.5 * late) {
    return fmt::format(
        "rank {} runs {} more compute{} than the others: imbalanced work (uneven batches or sequence lengths, a larger "
        "shard) or a slower GPU (check its clocks and throttling with nvidia-smi); balance the work so every rank "
        "reaches the collective together",
        s.rank, Ms(s.extra_compute_per_step_ns), unit);
  }
  return fmt::format(
      "rank {} computes about as much as the others but reaches its collectives {} later{}: its host side holds it "
      "back (data loading, CPU work between steps, kernel launches); look at its CPU timeline, give its data loader "
      "more workers or prefetch, and keep host work off the step",
      s.rank, Ms(late), unit);
}

// The exposure measured on the straggler, and what fits it.
std::string OverlapAdvice(const RankFigures& f, const Straggler& s) {
  if (f.communication_ns <= 0) return "";
  const double share =
      100.0 * static_cast<double>(f.exposed_communication_ns) / static_cast<double>(f.communication_ns);
  const double per = s.steps > 0 ? static_cast<double>(s.steps) : 1.0;
  const std::string unit = s.steps > 0 ? fmt::format(" per {}", s.step_stage) : std::string(" in all");
  int64_t count = 0;
  for (const RankCollective& c : f.collectives) count += c.count;
  const std::string exposed =
      fmt::format("{:.0f}% of rank {}'s communication time ({}{}) has no compute beside it", share, f.rank.rank,
                  Ms(static_cast<double>(f.exposed_communication_ns) / per), unit);
  if (share < 20) return exposed + ": communication is mostly hidden already; more overlap gains little";
  const double mean_us = count > 0 ? static_cast<double>(f.communication_ns) / static_cast<double>(count) / 1e3 : 0;
  const double per_step = static_cast<double>(count) / per;
  if (per_step >= 8 && mean_us < 100) {
    return exposed + fmt::format(
                         ", in {:.0f} collectives{} of {:.0f} us on average: fewer, larger collectives pay less "
                         "launch and latency cost (raise DDP's bucket_cap_mb, coalesce small tensors)",
                         per_step, unit, mean_us);
  }
  return exposed +
         ": overlap gradient reduction with backward (DDP starts a bucket's all-reduce when its gradients are ready: a "
         "smaller bucket_cap_mb starts the first one earlier; static_graph=True and gradient_as_bucket_view=True "
         "help), and keep the optimizer's collectives off the critical path";
}

}  // namespace

namespace {

// The collectives matched across ranks (the i-th of each kind on every rank is one collective)
// and what each rank's wait for the last to arrive adds up to, in all and over the collectives
// every rank launched in a steady instance of the step.
struct Skew {
  int64_t matched = 0, matched_steady = 0;
  std::vector<int64_t> wait, steady_wait;  // per rank
};

// Per collective kind: each collective's (start, kernel row); CollectiveStarts: per rank.
using KindStarts = std::map<CollectiveKind, std::vector<std::pair<int64_t, int64_t>>>;
using CollectiveStarts = std::vector<KindStarts>;

Skew MatchCollectives(CollectiveStarts& starts, const std::vector<char>& steady_rows) {
  const size_t n = starts.size();
  Skew s;
  s.wait.assign(n, 0);
  s.steady_wait.assign(n, 0);
  for (auto& by_kind : starts) {
    for (auto& [kind, v] : by_kind) std::sort(v.begin(), v.end());
  }
  for (const auto& [kind, first] : starts[0]) {
    size_t common = first.size();
    for (size_t r = 1; r < n; ++r) {
      auto it = starts[r].find(kind);
      common = std::min(common, it == starts[r].end() ? size_t{0} : it->second.size());
    }
    for (size_t j = 0; j < common; ++j) {
      int64_t last = 0;
      bool steady = !steady_rows.empty();
      for (size_t r = 0; r < n; ++r) {
        const auto& [start, row] = starts[r].at(kind)[j];
        last = std::max(last, start);
        steady = steady && steady_rows[static_cast<size_t>(row)] != 0;
      }
      for (size_t r = 0; r < n; ++r) {
        const int64_t w = last - starts[r].at(kind)[j].first;
        s.wait[r] += w;
        if (steady) s.steady_wait[r] += w;
      }
      if (steady) ++s.matched_steady;
    }
    s.matched += static_cast<int64_t>(common);
  }
  return s;
}

// The rank whose collectives wait least arrives last: chosen over the steady steps' collectives
// when there are any (the first steps hold NCCL's set-up and the first collectives' long waits),
// else over all of them; its lag and extra compute per step over the same steps.
Straggler ChooseStraggler(const RankAnalysis& out, const Skew& skew, const Stage* step,
                          const std::vector<int64_t>& steady_compute) {
  const size_t n = out.ranks.size();
  const bool steady = skew.matched_steady > 0;
  const std::vector<int64_t>& wait = steady ? skew.steady_wait : skew.wait;
  Straggler s;
  s.matched = skew.matched;
  s.matched_steady = skew.matched_steady;
  size_t who = 0;
  for (size_t r = 1; r < n; ++r) {
    if (wait[r] < wait[who]) who = r;
  }
  s.rank = out.ranks[who].rank.rank;
  double others_wait = 0, others_all = 0, others_compute = 0;
  for (size_t r = 0; r < n; ++r) {
    if (r == who) continue;
    others_wait += static_cast<double>(wait[r]);
    others_all += static_cast<double>(skew.wait[r]);
    others_compute += static_cast<double>(steady ? steady_compute[r] : out.ranks[r].compute_ns);
  }
  const auto others = static_cast<double>(n - 1);
  s.late_ns = static_cast<int64_t>(others_all / others) - skew.wait[who];
  const double late = others_wait / others - static_cast<double>(wait[who]);
  const double extra_compute =
      static_cast<double>(steady ? steady_compute[who] : out.ranks[who].compute_ns) - others_compute / others;
  double step_ns = 0;
  if (step != nullptr) {
    s.step_stage = DisplayName(*step);
    for (const RankStageTime& t : out.ranks[who].stages) {
      if (t.stage != s.step_stage) continue;
      s.steps = steady ? t.steady : t.instances;
      step_ns = static_cast<double>(t.median_wall_ns);
    }
  }
  const double per = s.steps > 0 ? static_cast<double>(s.steps) : 1.0;
  if (s.steps == 0) s.step_stage.clear();
  s.late_per_step_ns = s.steps > 0 ? late / per : 0;
  s.extra_compute_per_step_ns = extra_compute / per;
  s.advice = Advice(s, step_ns);
  s.overlap_advice = OverlapAdvice(out.ranks[who], s);
  return s;
}

// Adds the rank's compute kernels to `f`; returns their time in the steady steps (`steady_rows`).
int64_t AddCompute(const RankKernels& k, const std::vector<char>& steady_rows, RankFigures& f) {
  int64_t steady_ns = 0;
  for (const KernelLaunch& c : k.compute) {
    f.compute_ns += c.ns();
    if (!steady_rows.empty() && steady_rows[static_cast<size_t>(c.row)] != 0) steady_ns += c.ns();
  }
  f.kernels += static_cast<int64_t>(k.compute.size());
  f.kernel_ns += f.compute_ns;
  return steady_ns;
}

// Adds the rank's communication kernels to `f`, its collectives by kind and the communication
// its compute does not hide; returns each collective's start and row, by kind.
KindStarts AddCommunication(const RankKernels& k, const CollectiveBytes& bytes, RankFigures& f) {
  KindStarts starts;
  std::map<CollectiveKind, RankCollective> kinds;
  std::vector<TimeWindow> windows;
  for (const CommunicationLaunch& c : k.communication) {
    f.communication_ns += c.ns();
    windows.push_back(c.window);
    starts[c.kind].emplace_back(c.window.start, c.row);
    RankCollective& kc = kinds[c.kind];
    kc.kind = std::string(CollectiveKindName(c.kind));
    ++kc.count;
    kc.ns += c.ns();
    if (auto b = bytes.find(c.row); b != bytes.end()) {
      kc.bytes = kc.bytes.value_or(0) + b->second;
      ++kc.sized;
    }
  }
  f.kernels += static_cast<int64_t>(k.communication.size());
  f.kernel_ns += f.communication_ns;
  for (auto& [kind, c] : kinds) f.collectives.push_back(std::move(c));
  f.exposed_communication_ns = TotalNs(Complement(ComputeUnion(k), MergeIntervals(std::move(windows))));
  return starts;
}

}  // namespace

RankAnalysis AnalyzeRanks(const NsysEvents& events, const std::vector<RunRank>& ranks,
                          const std::unordered_map<int64_t, std::string>& names, const std::vector<Stage>& stages,
                          int64_t warmup, const CollectiveBytes& bytes) {
  RankAnalysis out;
  const Stage* step = StepStage(stages);
  const std::vector<std::vector<char>> steady = SteadyOfSteps(stages, warmup);
  const std::vector<char> steady_rows =
      step != nullptr && ranks.size() > 1
          ? SteadyStepRows(events, *step, steady[static_cast<size_t>(step - stages.data())])
          : std::vector<char>{};
  const std::vector<RankKernels> split = SplitKernelsByRank(events, ranks, names);
  const size_t n = ranks.size();
  out.ranks.resize(n);
  std::vector<int64_t> steady_compute(n, 0);  // compute kernel time in the steady steps
  CollectiveStarts starts(n);
  for (size_t r = 0; r < n; ++r) {
    RankFigures& f = out.ranks[r];
    f.rank = ranks[r];
    steady_compute[r] = AddCompute(split[r], steady_rows, f);
    starts[r] = AddCommunication(split[r], bytes, f);
    f.stages = StageTimes(ranks[r].global_pid, stages, steady);
  }
  if (n < 2) return out;
  const Skew skew = MatchCollectives(starts, steady_rows);
  for (size_t r = 0; r < n; ++r) out.ranks[r].collective_wait_ns = skew.wait[r];
  if (skew.matched == 0) return out;
  out.straggler = ChooseStraggler(out, skew, step, steady_compute);
  return out;
}

}  // namespace kscope::analysis
