// The iterations part of a run's report (report/iteration_part.h): the loop of a run without
// NVTX stages, the run's phases, what the workload already does, the headline verdict, and
// every timeline finding's advice fitted to the workload.
#include <fmt/format.h>

#include <cmath>

#include "analysis/iterations/bound_verdict.h"
#include "analysis/iterations/fit_advice.h"
#include "analysis/iterations/iterations.h"
#include "analysis/iterations/run_phases.h"
#include "analysis/iterations/workload_traits.h"
#include "analysis/stages/model_flops.h"
#include "analysis/stages/stage_gpu_metrics.h"
#include "analysis/stages/stage_steady.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

namespace {

WorkloadPart Workload(const analysis::WorkloadTraits& t) {
  return {.graph_launches = t.graph_launches,
          .graph_kernels = t.graph_kernels,
          .graph_kernel_pct = t.graph_kernel_pct(),
          .triton_kernels = t.triton_kernels,
          .triton_kernel_pct = t.triton_kernel_pct(),
          .module_loads = t.module_load_calls};
}

// The loop as a stage whose instances are its iterations, for the stages' steady state and MFU.
analysis::Stage LoopStage(const analysis::IterationLoop& loop) {
  analysis::Stage s;
  s.name = s.text = "iteration";
  s.instances = static_cast<int64_t>(loop.iterations.size());
  for (size_t j = 0; j < loop.iterations.size(); ++j) {
    const analysis::Iteration& it = loop.iterations[j];
    s.instance_list.push_back({.start = it.start,
                               .range_ns = it.end - it.start,
                               .end = it.end,
                               .ops = it.kernels,
                               .kernel_ns = it.kernel_ns,
                               .memop_ns = 0});
    s.windows.push_back({it.start, it.end});
    for (int64_t k = 0; k < it.kernels; ++k) {
      s.kernel_rows.push_back(loop.order[static_cast<size_t>(it.first_kernel + k)]);
      s.kernel_instance.push_back(static_cast<int32_t>(j));
    }
    s.kernels += it.kernels;
    s.kernel_ns += it.kernel_ns;
  }
  s.ops = s.kernels;
  return s;
}

IterationRow Row(const analysis::TimelineEvents& events, const analysis::GpuMetricSamples& sampled,
                 const analysis::Iteration& it, int64_t index, std::string kind) {
  const int64_t wall = it.end - it.start;
  const int64_t busy = analysis::OverlapNs(events.gpu_busy, {it.start, it.end});
  return {.index = index,
          .start_ns = it.start - events.span.start,
          .wall_ns = wall,
          .kernels = it.kernels,
          .kernel_ns = it.kernel_ns,
          .gpu_busy_pct = wall > 0 ? 100.0 * static_cast<double>(busy) / static_cast<double>(wall) : 0.0,
          .kind = std::move(kind),
          .gpu_metrics = analysis::SampleOver(sampled, {{it.start, it.end}})};
}

std::string Evidence(const analysis::IterationLoop& loop) {
  if (loop.source == analysis::IterationSource::kCudaGraph) {
    return fmt::format(
        "each iteration starts at a CUDA graph launch's first kernel; {} consecutive iterations of {} "
        "kernels repeat the same kernel names in the same order ({} graph launches among them)",
        loop.iterations.size(), loop.period, loop.graph_launches);
  }
  if (loop.boundary == analysis::IterationBoundary::kSynchronization) {
    return fmt::format(
        "{} consecutive stretches of {} kernels repeat the same kernel names in the same order; the host "
        "synchronizes with the GPU at the same place every {} of the smallest repeated sequence ({} kernels), and "
        "each iteration is the span between two synchronizations",
        loop.iterations.size(), loop.period, loop.sync_repeats, loop.repeat_kernels);
  }
  return fmt::format(
      "{} consecutive stretches of {} kernels repeat the same kernel names in the same order; each "
      "starts at the kernel that follows the period's longest GPU idle gap",
      loop.iterations.size(), loop.period);
}

// The note on a loop that nothing in the trace marks: its iteration is the smallest repeat.
std::optional<std::string> UnmarkedNote(const analysis::IterationLoop& loop) {
  if (loop.boundary != analysis::IterationBoundary::kNone) return std::nullopt;
  return fmt::format(
      "each iteration is the smallest repeated kernel sequence ({} kernel{}); nothing in the trace marks a coarser "
      "loop (no CUDA graph launch, host synchronization or standout idle gap at each iteration), so an iteration "
      "may be one layer of a pass or another part of a step",
      loop.repeat_kernels, loop.repeat_kernels == 1 ? "" : "s");
}

void DescribeBoundary(const analysis::IterationLoop& loop, IterationPart& p) {
  p.boundary = analysis::IterationBoundaryName(loop.boundary);
  p.repeat_kernels = loop.repeat_kernels;
  p.sync_repeats = loop.sync_repeats;
  if (loop.source == analysis::IterationSource::kKernelSequence && std::isfinite(loop.boundary_gap_ratio) &&
      loop.boundary != analysis::IterationBoundary::kSynchronization) {
    p.boundary_gap_ratio = loop.boundary_gap_ratio;
  }
  p.note = UnmarkedNote(loop);
}

struct LoopResult {
  IterationPart part;
  analysis::LoopWindows windows;
};

Result<LoopResult> Iterations(store::Store& store, const StageInputs& in, const analysis::IterationLoop& loop,
                              const analysis::WorkloadTraits& traits) {
  LoopResult r;
  IterationPart& p = r.part;
  p.source = analysis::IterationSourceName(loop.source);
  p.evidence = Evidence(loop);
  DescribeBoundary(loop, p);
  p.period_kernels = loop.period;
  p.loop_iterations = static_cast<int64_t>(loop.iterations.size());
  p.differing = static_cast<int64_t>(loop.differing.size());
  p.graph_launches = loop.graph_launches;
  const analysis::Stage stage = LoopStage(loop);
  const analysis::StageSteady steady = analysis::SteadyState(stage, in.config.stages.warmup);
  p.warmup = steady.warmup;
  p.steady = steady.steady;
  p.first_wall_ns = steady.wall.first;
  p.steady_median_wall_ns = steady.median_wall_ns;
  auto sampled = analysis::LoadGpuMetrics(store, in.timeline_run);
  if (!sampled.ok()) return sampled.error();
  p.gpu_metrics = analysis::SampleOver(*sampled, steady.windows);
  int64_t index = 0;
  for (const auto& it : loop.differing) {
    p.rows.push_back(Row(in.events, *sampled, it, ++index, "warm-up (differs)"));
    r.windows.windows.push_back({it.start, it.end});
    r.windows.steady.push_back(0);
  }
  for (size_t j = 0; j < loop.iterations.size(); ++j) {
    const bool counted = steady.counted[j] != 0;
    p.rows.push_back(Row(in.events, *sampled, loop.iterations[j], ++index, counted ? "steady" : "warm-up"));
    r.windows.windows.push_back({loop.iterations[j].start, loop.iterations[j].end});
    r.windows.steady.push_back(counted ? 1 : 0);
  }
  p.kernel_coverage_pct =
      traits.kernel_ns > 0 ? 100.0 * static_cast<double>(stage.kernel_ns) / static_cast<double>(traits.kernel_ns) : 0.0;
  auto diagnosis = analysis::DiagnoseTimeline(in.events, steady.windows, in.config.timeline);
  p.steady_gpu_busy_pct = diagnosis.gpu_busy_pct;
  p.findings = std::move(diagnosis.findings);
  auto rows = analysis::LoadKernelRows(store, in.timeline_run, &in.nsys);
  if (!rows.ok()) return rows.error();
  auto model = analysis::ResolveModel(in.config.model);
  if (!model.ok()) return model.error();
  const auto work = analysis::GatherProfiledWork(in.launches, in.timeline_run, *rows);
  p.mfu = ReportedMfu(analysis::ComputeStageMfu(stage, steady, *rows, work, *model, in.config.model, in.gpu, in.dtype));
  return r;
}

// The top-level NVTX stages' instances as the loop: steady where the stage counts them; a
// rank's report takes its own instances.
Result<analysis::LoopWindows> StageWindows(store::Store& store, const StageInputs& in) {
  auto stages = analysis::ComputeStages(store, in.timeline_run, in.rank != nullptr ? &in.rank->events : &in.nsys);
  if (!stages.ok()) return stages.error();
  analysis::LoopWindows w;
  for (const auto& s : *stages) {
    if (s.torch_op || s.library || s.parent >= 0) continue;
    const auto steady = analysis::SteadyState(s, in.config.stages.warmup);
    for (size_t i = 0; i < s.instance_list.size(); ++i) {
      w.windows.push_back({s.instance_list[i].start, s.instance_list[i].end});
      w.steady.push_back(steady.counted[i]);
    }
  }
  return w;
}

HeadlinePart Headline(const StageInputs& in, const analysis::LoopWindows& loop, const analysis::WorkloadTraits& traits,
                      std::string scope) {
  std::vector<analysis::TimeWindow> steady;
  for (size_t i = 0; i < loop.windows.size(); ++i) {
    if (loop.steady[i] != 0) steady.push_back(loop.windows[i]);
  }
  const analysis::IntervalSet whole{in.events.span};
  HeadlinePart h;
  if (steady.empty()) {
    h.scope = "whole run";
    h.verdict = analysis::JudgeBound(in.events, whole, traits, in.config.timeline);
    return h;
  }
  h.scope = std::move(scope);
  h.verdict = analysis::JudgeBound(in.events, analysis::MergeIntervals(steady), traits, in.config.timeline);
  h.whole_run = analysis::JudgeBound(in.events, whole, traits, in.config.timeline);
  return h;
}

void FitEveryFinding(const analysis::WorkloadTraits& traits, RunReport& out) {
  analysis::FitAdvice(traits, out.timeline.diagnosis.findings);
  for (auto& s : out.stages) analysis::FitAdvice(traits, s.findings);
  if (out.iterations) analysis::FitAdvice(traits, out.iterations->findings);
}

}  // namespace

Status AddIterations(store::Store& store, const StageInputs& in, RunReport& out) {
  auto input = analysis::LoadIterationInput(store, in.timeline_run, in.nsys);
  if (!input.ok()) return input.error();
  auto traits = analysis::LoadWorkloadTraits(store, in.nsys, *input);
  if (!traits.ok()) return traits.error();
  out.workload = Workload(*traits);
  analysis::LoopWindows windows;
  std::string scope = "steady stage instances";
  if (out.stages.empty()) {
    scope = "steady iterations";
    const auto loop = analysis::FindIterations(*input);
    if (loop.source != analysis::IterationSource::kNone) {
      auto r = Iterations(store, in, loop, *traits);
      if (!r.ok()) return r.error();
      out.iterations = std::move(r->part);
      windows = std::move(r->windows);
    } else if (!in.nsys.kernels.start.empty()) {
      out.notes.push_back(
          "no NVTX stages and no repeated iterations in the kernel sequence: the whole-run figures include start-up "
          "and any compilation");
    }
  } else {
    auto w = StageWindows(store, in);
    if (!w.ok()) return w.error();
    windows = std::move(*w);
  }
  FitEveryFinding(*traits, out);
  if (in.events.span.end <= in.events.span.start) return Status::Ok();
  out.phases = analysis::SplitRun(in.events, windows, *traits, in.config.timeline.min_gap_us * 1000);
  out.headline = Headline(in, windows, *traits, scope);
  return Status::Ok();
}

}  // namespace kscope::report::parts
