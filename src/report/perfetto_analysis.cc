// kscope's own view of a run as tracks of the Perfetto trace (report/perfetto_trace.h): the
// run's phases as the report splits it (report/run_report_iterations.cc), its loop's
// iterations, each NVTX stage's instances, steady or warm-up.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/iterations/iterations.h"
#include "analysis/iterations/run_phases.h"
#include "analysis/iterations/workload_traits.h"
#include "analysis/stages/stage_steady.h"
#include "analysis/stages/stages.h"
#include "analysis/timeline/timeline_events.h"
#include "report/perfetto_parts.h"

namespace kscope::report::perfetto {

namespace {

bool UserStage(const analysis::Stage& s) { return !s.torch_op && !s.library; }

double Rounded(double pct) { return std::round(pct * 100) / 100; }

// Which iterations of the loop are steady: the loop as a stage of one process whose instances
// are its iterations (as the report's steady state counts them).
std::vector<char> SteadyIterations(const analysis::IterationLoop& loop, int64_t warmup) {
  analysis::Stage stage;
  for (const analysis::Iteration& it : loop.iterations) {
    stage.instance_list.push_back({.start = it.start, .range_ns = it.end - it.start, .end = it.end});
  }
  return analysis::SteadyState(stage, warmup).counted;
}

// The windows the report splits the run by: the top-level stages' instances when the run has
// stages of the user's, else the loop's iterations (the differing ones before it too).
analysis::LoopWindows PhaseWindows(const std::vector<analysis::Stage>& stages, const analysis::IterationLoop& loop,
                                   int64_t warmup) {
  analysis::LoopWindows w;
  if (std::any_of(stages.begin(), stages.end(), UserStage)) {
    for (const analysis::Stage& s : stages) {
      if (!UserStage(s) || s.parent >= 0) continue;
      const analysis::StageSteady steady = analysis::SteadyState(s, warmup);
      for (size_t i = 0; i < s.instance_list.size(); ++i) {
        w.windows.push_back({s.instance_list[i].start, s.instance_list[i].end});
        w.steady.push_back(steady.counted[i]);
      }
    }
    return w;
  }
  if (loop.source == analysis::IterationSource::kNone) return w;
  for (const analysis::Iteration& it : loop.differing) {
    w.windows.push_back({it.start, it.end});
    w.steady.push_back(0);
  }
  const std::vector<char> steady = SteadyIterations(loop, warmup);
  for (size_t j = 0; j < loop.iterations.size(); ++j) {
    w.windows.push_back({loop.iterations[j].start, loop.iterations[j].end});
    w.steady.push_back(steady[j]);
  }
  return w;
}

void WritePhases(TraceRun& run, const std::vector<analysis::RunPhase>& phases, ChromeTraceWriter& out) {
  if (phases.empty()) return;
  static const JsonString kPhase("phase");
  const TraceTrack track = AnalysisTrack(run, out, "run phases");
  for (const analysis::RunPhase& p : phases) {
    out.Slice(track, p.kind, kPhase, p.start, p.end - p.start,
              TraceArgs()
                  .Add("share_pct", Rounded(p.share_pct))
                  .Add("gpu_busy_pct", Rounded(p.gpu_busy_pct))
                  .Add("kernels", p.kernels)
                  .Add("stretches", p.parts)
                  .Add("between_ns", p.between_ns));
  }
}

void WriteIterations(TraceRun& run, const analysis::IterationLoop& loop, int64_t warmup, ChromeTraceWriter& out) {
  if (loop.iterations.empty()) return;
  const std::string how = loop.boundary == analysis::IterationBoundary::kNone
                              ? analysis::IterationSourceName(loop.source)
                              : analysis::IterationBoundaryName(loop.boundary);
  static const JsonString kIteration("iteration");
  const TraceTrack track = AnalysisTrack(run, out, fmt::format("iterations ({})", how));
  auto slice = [&](const analysis::Iteration& it, const std::string& name, std::string_view state) {
    out.Slice(track, name, kIteration, it.start, it.end - it.start,
              TraceArgs().Add("state", state).Add("kernels", it.kernels).Add("kernel_ns", it.kernel_ns));
  };
  int64_t index = 0;
  for (const analysis::Iteration& it : loop.differing) slice(it, "warm-up (differs)", "warm-up (differs)");
  const std::vector<char> steady = SteadyIterations(loop, warmup);
  for (size_t j = 0; j < loop.iterations.size(); ++j) {
    const bool counted = steady[j] != 0;
    ++index;
    slice(loop.iterations[j], fmt::format("iteration {}{}", index, counted ? "" : " (warm-up)"),
          counted ? "steady" : "warm-up");
  }
}

// A track per stage of the user's (and per process, in a job of several), in the order of
// nsys's nvtx_gpu_proj_sum; each instance's range, steady or warm-up.
void WriteStages(TraceRun& run, const std::vector<analysis::Stage>& stages, int64_t warmup, ChromeTraceWriter& out) {
  static const JsonString kStage("stage");
  for (const analysis::Stage& s : stages) {
    if (!UserStage(s) || s.instance_list.empty()) continue;
    const analysis::StageSteady steady = analysis::SteadyState(s, warmup);
    const std::string name = analysis::DisplayName(s);
    std::map<int64_t, TraceTrack> tracks;  // by global pid
    for (const analysis::StageInstance& inst : s.instance_list) tracks.emplace(inst.global_pid, TraceTrack{});
    for (auto& [global_pid, track] : tracks) {
      std::string label = fmt::format("stage {}", name);
      if (tracks.size() > 1) {
        const auto rank = run.layout.rank.find(global_pid);
        label += rank != run.layout.rank.end() ? fmt::format(" (rank {})", rank->second.rank)
                                               : fmt::format(" (pid {})", analysis::PidOf(global_pid));
      }
      track = AnalysisTrack(run, out, label);
    }
    for (size_t i = 0; i < s.instance_list.size(); ++i) {
      const analysis::StageInstance& inst = s.instance_list[i];
      const bool counted = steady.counted[i] != 0;
      out.Slice(tracks.at(inst.global_pid), counted ? name : name + " (warm-up)", kStage, inst.start, inst.range_ns,
                TraceArgs()
                    .Add("instance", static_cast<int64_t>(i + 1))
                    .Add("state", counted ? "steady" : "warm-up")
                    .Add("gpu_ops", inst.ops)
                    .Add("kernel_ns", inst.kernel_ns)
                    .Add("memop_ns", inst.memop_ns)
                    .Add("wall_ns", inst.wall_ns()));
    }
  }
}

}  // namespace

Status WriteAnalysisTracks(store::Store& store, TraceRun& run, const analysis::AnalysisOptions& config,
                           ChromeTraceWriter& out) {
  const int64_t warmup = config.stages.warmup;
  auto input = analysis::LoadIterationInput(store, run.run_id, run.nsys);
  if (!input.ok()) return input.error();
  const analysis::IterationLoop loop = analysis::FindIterations(*input);
  auto stages = analysis::ComputeStages(store, run.run_id, &run.nsys);
  if (!stages.ok()) return stages.error();
  auto traits = analysis::LoadWorkloadTraits(store, run.nsys, *input);
  if (!traits.ok()) return traits.error();
  auto events = analysis::LoadTimelineEvents(store, run.run_id, &run.nsys);
  if (!events.ok()) return events.error();
  if (events->span.end > events->span.start) {
    WritePhases(
        run,
        analysis::SplitRun(*events, PhaseWindows(*stages, loop, warmup), *traits, config.timeline.min_gap_us * 1000),
        out);
  }
  WriteIterations(run, loop, warmup, out);
  WriteStages(run, *stages, warmup, out);
  return Status::Ok();
}

}  // namespace kscope::report::perfetto
