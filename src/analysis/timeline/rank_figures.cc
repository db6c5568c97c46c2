#include "analysis/timeline/rank_figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/names/communication.h"
#include "analysis/timeline/duration_stats.h"
#include "analysis/timeline/intervals.h"

namespace kscope::analysis {

namespace {

bool IsStep(const Stage& s) { return s.depth == 0 && !s.torch_op && !s.library; }

// Per top-level stage, the rank's instances (those that launched its kernels) after warm-up.
std::vector<RankStageTime> StageTimes(const NsysEvents& e, int64_t global_pid, const std::vector<Stage>& stages,
                                      int64_t warmup) {
  std::vector<RankStageTime> out;
  for (const Stage& st : stages) {
    if (!IsStep(st)) continue;
    std::set<int32_t> mine;
    for (size_t i = 0; i < st.kernel_rows.size(); ++i) {
      if (e.kernels.global_pid[static_cast<size_t>(st.kernel_rows[i])] == global_pid)
        mine.insert(st.kernel_instance[i]);
    }
    if (mine.empty()) continue;
    RankStageTime t;
    t.stage = DisplayName(st);
    t.instances = static_cast<int64_t>(mine.size());
    const int64_t skip = t.instances > warmup ? warmup : 0;
    std::vector<int64_t> walls;
    int64_t n = 0;
    for (int32_t inst : mine) {
      if (n++ < skip) continue;
      walls.push_back(st.instance_list[static_cast<size_t>(inst)].wall_ns());
    }
    t.steady = static_cast<int64_t>(walls.size());
    t.median_wall_ns = ComputeStats(walls).median;
    out.push_back(std::move(t));
  }
  return out;
}

std::string Ms(double ns) { return fmt::format("{:.2f} ms", ns / 1e6); }

std::string Advice(const Straggler& s) {
  const bool per_step = s.steps > 0;
  const std::string unit = per_step ? fmt::format(" per {}", s.step_stage) : std::string(" in all");
  const double late = per_step ? s.late_per_step_ns : static_cast<double>(s.late_ns);
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

RankAnalysis AnalyzeRanks(const NsysEvents& events, const std::vector<RunRank>& ranks,
                          const std::unordered_map<int64_t, std::string>& names, const std::vector<Stage>& stages,
                          int64_t warmup, const CollectiveBytes& bytes) {
  RankAnalysis out;
  const auto& k = events.kernels;
  std::map<int64_t, size_t> of_pid;  // global pid -> index into ranks
  for (size_t r = 0; r < ranks.size(); ++r) of_pid[ranks[r].global_pid] = r;
  std::unordered_map<int64_t, std::optional<CommunicationKernel>> comm_of;
  for (const auto& [id, name] : names) comm_of[id] = CommunicationOf(name);

  const size_t n = ranks.size();
  out.ranks.resize(n);
  std::vector<std::vector<TimeWindow>> compute(n), comm(n);
  // Per rank and collective kind: (start, row), to sort into order.
  std::vector<std::map<CollectiveKind, std::vector<int64_t>>> starts(n);
  std::vector<std::map<CollectiveKind, RankCollective>> kinds(n);
  for (size_t i = 0; i < k.start.size(); ++i) {
    auto it = of_pid.find(k.global_pid[i]);
    if (it == of_pid.end()) continue;
    const size_t r = it->second;
    RankFigures& f = out.ranks[r];
    const int64_t d = k.end[i] - k.start[i];
    ++f.kernels;
    f.kernel_ns += d;
    auto c = comm_of.find(k.name[i]);
    if (c != comm_of.end() && c->second) {
      f.communication_ns += d;
      comm[r].push_back({k.start[i], k.end[i]});
      starts[r][c->second->kind].push_back(k.start[i]);
      RankCollective& kc = kinds[r][c->second->kind];
      kc.kind = std::string(CollectiveKindName(c->second->kind));
      ++kc.count;
      kc.ns += d;
      if (auto b = bytes.find(static_cast<int64_t>(i)); b != bytes.end()) {
        kc.bytes = kc.bytes.value_or(0) + b->second;
        ++kc.sized;
      }
    } else {
      f.compute_ns += d;
      compute[r].push_back({k.start[i], k.end[i]});
    }
  }
  for (size_t r = 0; r < n; ++r) {
    RankFigures& f = out.ranks[r];
    f.rank = ranks[r];
    f.exposed_communication_ns =
        TotalNs(Complement(MergeIntervals(std::move(compute[r])), MergeIntervals(std::move(comm[r]))));
    for (auto& [kind, c] : kinds[r]) f.collectives.push_back(std::move(c));
    f.stages = StageTimes(events, ranks[r].global_pid, stages, warmup);
  }
  if (n < 2) return out;

  // Collectives matched across ranks: the i-th of each kind on every rank is one collective.
  int64_t matched = 0;
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
      for (size_t r = 0; r < n; ++r) last = std::max(last, starts[r].at(kind)[j]);
      for (size_t r = 0; r < n; ++r) out.ranks[r].collective_wait_ns += last - starts[r].at(kind)[j];
    }
    matched += static_cast<int64_t>(common);
  }
  if (matched == 0) return out;
  Straggler s;
  s.matched = matched;
  size_t who = 0;
  for (size_t r = 1; r < n; ++r) {
    if (out.ranks[r].collective_wait_ns < out.ranks[who].collective_wait_ns) who = r;
  }
  s.rank = ranks[who].rank;
  double others_wait = 0, others_compute = 0;
  for (size_t r = 0; r < n; ++r) {
    if (r == who) continue;
    others_wait += static_cast<double>(out.ranks[r].collective_wait_ns);
    others_compute += static_cast<double>(out.ranks[r].compute_ns);
  }
  others_wait /= static_cast<double>(n - 1);
  others_compute /= static_cast<double>(n - 1);
  s.late_ns = static_cast<int64_t>(others_wait) - out.ranks[who].collective_wait_ns;
  const double extra_compute = static_cast<double>(out.ranks[who].compute_ns) - others_compute;
  // The step: the top-level stage with the most time.
  const Stage* step = nullptr;
  for (const Stage& st : stages) {
    if (IsStep(st) && (step == nullptr || st.range_ns > step->range_ns)) step = &st;
  }
  if (step != nullptr) {
    s.step_stage = DisplayName(*step);
    for (const RankStageTime& t : out.ranks[who].stages) {
      if (t.stage == s.step_stage) s.steps = t.instances;
    }
  }
  const double per = s.steps > 0 ? static_cast<double>(s.steps) : 1.0;
  if (s.steps == 0) s.step_stage.clear();
  s.late_per_step_ns = s.steps > 0 ? static_cast<double>(s.late_ns) / per : 0;
  s.extra_compute_per_step_ns = extra_compute / per;
  s.advice = Advice(s);
  s.overlap_advice = OverlapAdvice(out.ranks[who], s);
  out.straggler = std::move(s);
  return out;
}

}  // namespace kscope::analysis
