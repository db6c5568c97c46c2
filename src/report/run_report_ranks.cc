// The per-rank parts of a run's report (report/run_report.h): `ranks` and `straggler`, and what a
// job of several ranks shows per GPU in the run's own parts (its stages' GPU busy and verdicts,
// its headline).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "analysis/stages/stages.h"
#include "analysis/timeline/intervals.h"
#include "analysis/timeline/rank_figures.h"
#include "analysis/timeline/rank_selection.h"
#include "analysis/timeline/ranks.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

namespace {

// The ranks whose GPU ncu profiled: its pass is a run of its own (other process IDs), so a
// rank is known by its GPU (ncu --devices of profile.ncu_rank), where no other rank shares it.
std::set<int64_t> ProfiledRanks(const std::vector<analysis::RunRank>& ranks,
                                const std::vector<analysis::NcuLaunch>& launches) {
  std::set<int64_t> profiled;
  for (const auto& l : launches) {
    int64_t on_device = 0, which = -1;
    for (const auto& r : ranks) {
      if (l.key.device && *l.key.device == r.device) ++on_device, which = r.rank;
    }
    if (on_device == 1) profiled.insert(which);
  }
  return profiled;
}

std::string MeasuredOn(const std::set<int64_t>& profiled) {
  if (profiled.size() == 1) return fmt::format("the FLOPs ncu measured on rank {}'s GPU", *profiled.begin());
  return "ncu's FLOPs";
}

// The figures of the rank's own report that the whole run's report shows per rank.
RankPart Condensed(analysis::RankFigures figures, const RunReport& own) {
  RankPart p;
  static_cast<analysis::RankFigures&>(p) = std::move(figures);
  p.wall_ns = own.summary.wall_ns;
  p.gpu_busy_ns = own.summary.gpu_busy_ns;
  p.gpu_busy_pct = own.summary.gpu_busy_pct;
  for (const StagePart& s : own.stages) {
    p.gpu_stages.push_back({.stage = s.display_name,
                            .depth = s.depth,
                            .instances = s.instances,
                            .steady = s.steady.steady,
                            .first_wall_ns = s.steady.wall.first,
                            .median_wall_ns = s.steady.median_wall_ns,
                            .gpu_busy_pct = s.gpu_busy_pct,
                            .mfu_pct = s.mfu.mfu_pct,
                            .mbu_pct = s.mfu.mbu_pct,
                            .mfu_source = s.mfu.mfu_pct ? s.mfu.mfu_source : std::string()});
  }
  for (size_t i = 0; i < own.top_kernels.size() && i < 5; ++i) p.top_kernels.push_back(own.top_kernels[i]);
  return p;
}

// Each stage's GPU time per rank (its GPU's busy time in its own steady windows) and those
// windows' time, added up over the ranks.
using StageKey = std::pair<std::string, std::string>;  // name, style
struct GpuTime {
  int64_t busy_ns = 0, window_ns = 0;
  double ops = 0;  // GPU operations (kernels, copies, sets) started in the windows
};
void AddGpuTime(const RunReport& own, std::map<StageKey, GpuTime>& total) {
  for (const StagePart& s : own.stages) {
    GpuTime& t = total[{s.name, s.style}];
    const int64_t window_ns = analysis::TotalNs(analysis::MergeIntervals(s.steady.windows));
    t.busy_ns += s.gpu_busy_ns;
    t.window_ns += window_ns;
    t.ops += s.launches_per_s * static_cast<double>(window_ns) * 1e-9;
  }
}

// A stage row's GPU busy and launch rate in a job of several ranks are per GPU: its ranks' busy
// time and GPU operations over their windows' time. The union over the GPUs would count one
// GPU's idle time as busy while another works (tp_infer's generate: 96.5% against 47.6% and
// 56.6% on its ranks), and every GPU's launches as one GPU's.
void PerGpu(const std::map<StageKey, GpuTime>& total, RunReport& out) {
  for (StagePart& s : out.stages) {
    auto it = total.find({s.name, s.style});
    if (it == total.end() || it->second.window_ns <= 0) continue;
    const auto window_ns = static_cast<double>(it->second.window_ns);
    s.gpu_busy_ns = it->second.busy_ns;
    s.gpu_busy_pct = 100.0 * static_cast<double>(it->second.busy_ns) / window_ns;
    s.launches_per_s = it->second.ops * 1e9 / window_ns;
  }
}

// What one rank's own report says of its GPU that the job's report shows: its headline and its
// stages' findings.
struct GpuVerdicts {
  std::optional<HeadlinePart> headline;
  std::map<StageKey, std::vector<analysis::Finding>> findings;
};
GpuVerdicts VerdictsOf(const RunReport& own) {
  GpuVerdicts v{own.headline, {}};
  for (const StagePart& s : own.stages) v.findings[{s.name, s.style}] = s.findings;
  return v;
}

// The headline and the stage verdicts of a job of several ranks are one GPU's: those of the
// rank the others wait for at the collectives (the straggler sets the job's pace), else rank
// 0's. One verdict over every GPU's work would call a GPU busy while another works, and count a
// rank's collectives spinning on its peers as busy (tp_infer: "GPU-bound, 96.5% busy" where
// rank 0, the straggler, was busy 47.5% of its steady generate windows).
void VerdictsOfOneRank(const std::vector<analysis::RunRank>& ranks, const std::optional<analysis::Straggler>& straggler,
                       std::vector<GpuVerdicts> verdicts, RunReport& out) {
  const int64_t pace = straggler ? straggler->rank : 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].rank != pace) continue;
    if (verdicts[i].headline) {
      out.headline = std::move(verdicts[i].headline);
      out.headline->scope = fmt::format("{}, rank {}'s GPU{}", out.headline->scope, pace,
                                        straggler ? ": the rank the others wait for" : "");
    }
    for (StagePart& s : out.stages) {
      auto it = verdicts[i].findings.find({s.name, s.style});
      s.findings = it != verdicts[i].findings.end() ? std::move(it->second) : std::vector<analysis::Finding>{};
    }
  }
}

}  // namespace

std::string RankReportNote(const analysis::RunRank& rank, const std::vector<analysis::RunRank>& ranks,
                           const std::vector<analysis::NcuLaunch>& launches) {
  return fmt::format(
      "rank {} of {} (process {}, GPU {}): every timeline, stage and kernel figure is this rank's alone; MFU and MBU "
      "against one GPU's peak, from {} for each launch configuration",
      rank.rank, ranks.size(), rank.pid, rank.device, MeasuredOn(ProfiledRanks(ranks, launches)));
}

Status AddRanks(store::Store& store, const GpuInputs& in, const std::vector<analysis::RunRank>& ranks, RunReport& out) {
  if (ranks.size() < 2) return Status::Ok();
  std::vector<int64_t> ids(in.nsys.kernels.name.begin(), in.nsys.kernels.name.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto names = store.Strings(ids);
  if (!names.ok()) return names.error();
  auto stages = analysis::ComputeStages(store, in.timeline_run, &in.nsys);
  if (!stages.ok()) return stages.error();
  auto bytes = analysis::LoadCollectiveBytes(store, in.timeline_run);
  if (!bytes.ok()) return bytes.error();
  auto figures = analysis::AnalyzeRanks(in.nsys, ranks, *names, *stages, in.config.stages.warmup, *bytes);
  out.notes.push_back(fmt::format(
      "{} ranks: the stages pool the instances of every rank, each rank's first stages.warmup its warm-up; a stage's "
      "GPU busy, launch rate, MFU and MBU are per GPU: all ranks' steady busy time and launches on their own GPUs, "
      "FLOPs "
      "and bytes over their "
      "wall time, against one GPU's peak (the ranks' mean, weighted by wall time); each rank's own stages (instances, "
      "first and steady time, GPU busy, MFU and MBU "
      "against one GPU's peak) and kernels are in the ranks part (kscope report --rank N: one rank's whole report); "
      "MFU and MBU from {} (never from a communication kernel)",
      ranks.size(), MeasuredOn(ProfiledRanks(ranks, in.launches))));
  std::map<StageKey, GpuTime> gpu_time;
  std::vector<GpuVerdicts> verdicts;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const analysis::RankSelection selection = analysis::SelectRank(in.nsys, ranks[i]);
    GpuInputs one = in;
    one.rank = &selection;
    RunReport own;
    KSCOPE_RETURN_IF_ERROR(AddGpuParts(store, one, own));
    AddGpuTime(own, gpu_time);
    verdicts.push_back(VerdictsOf(own));
    out.ranks.push_back(Condensed(std::move(figures.ranks[i]), own));
  }
  PerGpu(gpu_time, out);
  VerdictsOfOneRank(ranks, figures.straggler, std::move(verdicts), out);
  out.straggler = std::move(figures.straggler);
  return Status::Ok();
}

}  // namespace kscope::report::parts
