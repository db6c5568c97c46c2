#include "report/run_report.h"

#include "analysis/timeline/rank_selection.h"
#include "analysis/timeline/ranks.h"
#include "analysis/timeline/timeline.h"
#include "report/run_report_parts.h"

namespace kscope::report {

namespace {

// The run and its manifest; a run without its own GPU takes its timeline run's.
RunPart Run(const store::RunInfo& run, const store::RunInfo& timeline) {
  RunPart p;
  p.id = run.id;
  p.manifest = run.manifest;
  p.status = run.status;
  p.imported_at = run.imported_at;
  p.timeline_run = timeline.id;
  if (!p.manifest.gpu && timeline.manifest.gpu && !timeline.manifest.gpu->empty())
    p.manifest.gpu = timeline.manifest.gpu;
  return p;
}

// What the timeline run's events came from, when it is not an nsys export.
Result<std::optional<std::string>> SourceOf(store::Store& store, int64_t timeline_run) {
  auto q = store.db().Prepare("SELECT 1 FROM source_file WHERE run_id = ?1 AND format = 'kineto-trace' LIMIT 1");
  if (!q.ok()) return q.error();
  q->Bind(1, timeline_run);
  if (q->Step()) return std::optional<std::string>("PyTorch profiler trace");
  return std::optional<std::string>();
}

TimelinePart Timeline(analysis::TimelineDiagnosis whole) {
  TimelinePart p;
  p.start_ns = whole.windows.empty() ? 0 : whole.windows.front().start;
  p.end_ns = whole.windows.empty() ? 0 : whole.windows.back().end;
  p.diagnosis = std::move(whole);
  return p;
}

SummaryPart Summary(const analysis::TimelineDiagnosis& whole, const analysis::TimelineEvents& events,
                    size_t profiled_launches, size_t profiled_kernels) {
  int64_t memop_ns = 0;
  for (size_t i = 0; i < events.memops.start.size(); ++i) memop_ns += events.memops.end[i] - events.memops.start[i];
  return {.wall_ns = whole.wall_ns,
          .kernel_ns = whole.kernel_ns,
          .memop_ns = memop_ns,
          .gpu_busy_ns = whole.gpu_busy_ns,
          .gpu_busy_pct = whole.gpu_busy_pct,
          .kernels = whole.kernels,
          .memops = whole.memops,
          .api_calls = static_cast<int64_t>(events.api.start.size()),
          .profiled_launches = static_cast<int64_t>(profiled_launches),
          .profiled_kernels = static_cast<int64_t>(profiled_kernels)};
}

}  // namespace

Result<int64_t> TimelineRun(store::Store& store, int64_t run_id) {
  auto kernels = store.StreamRows(run_id, "kernel");
  if (!kernels.ok()) return kernels.error();
  if (*kernels > 0) return run_id;
  auto q = store.db().Prepare(
      "SELECT kernel_run FROM ncu_launch WHERE run_id = ?1 AND kernel_run IS NOT NULL GROUP BY kernel_run "
      "ORDER BY count(*) DESC LIMIT 1");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  if (q->Step()) return q->Int(0);
  return Error{"run " + std::to_string(run_id), "has no nsys data and no link to a run that has",
               "import its nsys export into it: kscope import --run " + std::to_string(run_id) + " FILE.sqlite"};
}

Status parts::AddGpuParts(store::Store& store, const GpuInputs& in, RunReport& out) {
  const analysis::NsysEvents& scoped = in.rank != nullptr ? in.rank->events : in.nsys;
  auto events = analysis::LoadTimelineEvents(store, in.timeline_run, &scoped,
                                             in.rank != nullptr ? &in.rank->memop_rows : nullptr);
  if (!events.ok()) return events.error();
  out.timeline = Timeline(analysis::DiagnoseTimeline(*events, {}, in.config.timeline));
  out.summary = Summary(out.timeline.diagnosis, *events, in.launches.size(), in.verdicts.size());
  KSCOPE_RETURN_IF_ERROR(AddKernels(store, in.timeline_run, in.rank, in.verdicts, out));
  AddAboveHundredNote(out);
  out.roofline = Roofline(in.launches, in.config.classify);
  const StageInputs stage_inputs{.timeline_run = in.timeline_run,
                                 .launches = in.launches,
                                 .nsys = in.nsys,
                                 .rank = in.rank,
                                 .events = *events,
                                 .verdicts = in.verdicts,
                                 .config = in.config,
                                 .gpu = in.gpu,
                                 .dtype = in.dtype};
  KSCOPE_RETURN_IF_ERROR(AddStages(store, stage_inputs, out));
  KSCOPE_RETURN_IF_ERROR(AddIterations(store, stage_inputs, out));
  return AddCriticalPath(store, in, out);
}

Result<RunReport> BuildRunReport(store::Store& store, int64_t run_id, const analysis::AnalysisOptions& config,
                                 std::optional<int64_t> rank) {
  auto run = store.GetRun(run_id);
  if (!run.ok()) return run.error();
  auto timeline_run = TimelineRun(store, run_id);
  if (!timeline_run.ok()) return timeline_run.error();
  auto tl_info = store.GetRun(*timeline_run);
  if (!tl_info.ok()) return tl_info.error();
  auto ranks = analysis::ReadRanks(store, *timeline_run);
  if (!ranks.ok()) return ranks.error();
  std::optional<analysis::RunRank> one;
  if (rank) {
    auto found = analysis::FindRank(*ranks, *rank, run_id);
    if (!found.ok()) return found.error();
    one = *found;
  }

  RunReport r;
  r.run = Run(*run, *tl_info);
  auto source = SourceOf(store, *timeline_run);
  if (!source.ok()) return source.error();
  r.run.source = *source;
  r.run.rank = one;
  if (*timeline_run != run_id) {
    r.notes.push_back("the timeline, stages and kernel times are those of run " + std::to_string(*timeline_run) +
                      ", the discovery run whose launches this run profiled");
  }
  auto nsys = analysis::LoadNsysEvents(store, *timeline_run);
  if (!nsys.ok()) return nsys.error();
  std::optional<analysis::RankSelection> selection;
  if (one) selection = analysis::SelectRank(*nsys, *one);
  auto launches = analysis::LoadNcuLaunches(store, run_id);
  if (!launches.ok()) return launches.error();
  const auto verdicts = parts::Verdicts(*launches, config.classify);
  const std::string dtype = !config.model.dtype.empty()
                                ? config.model.dtype
                                : run->manifest.dtype.value_or(tl_info->manifest.dtype.value_or(""));
  const parts::GpuInputs gpu_inputs{.timeline_run = *timeline_run,
                                    .nsys = *nsys,
                                    .rank = selection ? &*selection : nullptr,
                                    .launches = *launches,
                                    .verdicts = verdicts,
                                    .config = config,
                                    .gpu = r.run.manifest.gpu.value_or(""),
                                    .dtype = dtype};
  KSCOPE_RETURN_IF_ERROR(parts::AddGpuParts(store, gpu_inputs, r));
  KSCOPE_RETURN_IF_ERROR(parts::AddCompleteness(store, *run, static_cast<int64_t>(launches->size()), r));
  if (one) {
    r.notes.push_back(parts::RankReportNote(*one, *ranks, *launches));
  } else {
    KSCOPE_RETURN_IF_ERROR(parts::AddRanks(store, gpu_inputs, *ranks, r));
  }
  KSCOPE_RETURN_IF_ERROR(
      parts::AddDataNotes(store, run_id, *timeline_run, selection ? selection->events : *nsys, r.notes));
  if (launches->empty()) {
    r.notes.push_back(
        "no ncu data: kernel classes, roofline and measured FLOPs need a deep pass (kscope profile, "
        "or kscope import --run " +
        std::to_string(run_id) + " REPORT.ncu-rep)");
  }
  AddShortNames(r);
  return r;
}

}  // namespace kscope::report
