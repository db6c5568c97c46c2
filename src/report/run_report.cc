#include "report/run_report.h"

#include "analysis/timeline/timeline.h"
#include "report/run_report_parts.h"

namespace kscope::report {

namespace {

// The run and its manifest; a run without its own GPU takes its timeline run's.
RunPart Run(const store::RunInfo& run, const store::RunInfo& timeline) {
  RunPart p{.id = run.id,
            .manifest = run.manifest,
            .status = run.status,
            .imported_at = run.imported_at,
            .timeline_run = timeline.id};
  if (!p.manifest.gpu && timeline.manifest.gpu && !timeline.manifest.gpu->empty())
    p.manifest.gpu = timeline.manifest.gpu;
  return p;
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

Result<RunReport> BuildRunReport(store::Store& store, int64_t run_id, const config::Config& config) {
  auto run = store.GetRun(run_id);
  if (!run.ok()) return run.error();
  auto timeline_run = TimelineRun(store, run_id);
  if (!timeline_run.ok()) return timeline_run.error();
  auto tl_info = store.GetRun(*timeline_run);
  if (!tl_info.ok()) return tl_info.error();

  RunReport r;
  r.run = Run(*run, *tl_info);
  if (*timeline_run != run_id) {
    r.notes.push_back("the timeline, stages and kernel times are those of run " + std::to_string(*timeline_run) +
                      ", the discovery run whose launches this run profiled");
  }
  auto nsys = analysis::LoadNsysEvents(store, *timeline_run);
  if (!nsys.ok()) return nsys.error();
  auto events = analysis::LoadTimelineEvents(store, *timeline_run, &*nsys);
  if (!events.ok()) return events.error();
  r.timeline = Timeline(analysis::DiagnoseTimeline(*events, {}, config.timeline));

  auto launches = analysis::LoadNcuLaunches(store, run_id);
  if (!launches.ok()) return launches.error();
  const auto verdicts = parts::Verdicts(*launches, config.classify);
  r.summary = Summary(r.timeline.diagnosis, *events, launches->size(), verdicts.size());
  KSCOPE_RETURN_IF_ERROR(parts::AddKernels(store, *timeline_run, verdicts, r));
  parts::AddAboveHundredNote(r);
  r.roofline = parts::Roofline(*launches, config.classify);
  const std::string dtype = !config.model.dtype.empty()
                                ? config.model.dtype
                                : run->manifest.dtype.value_or(tl_info->manifest.dtype.value_or(""));
  const parts::StageInputs stage_inputs{.timeline_run = *timeline_run,
                                        .launches = *launches,
                                        .nsys = *nsys,
                                        .events = *events,
                                        .verdicts = verdicts,
                                        .config = config,
                                        .gpu = r.run.manifest.gpu.value_or(""),
                                        .dtype = dtype};
  KSCOPE_RETURN_IF_ERROR(parts::AddStages(store, stage_inputs, r));
  KSCOPE_RETURN_IF_ERROR(parts::AddIterations(store, stage_inputs, r));
  KSCOPE_RETURN_IF_ERROR(parts::AddCompleteness(store, *run, static_cast<int64_t>(launches->size()), r));
  KSCOPE_RETURN_IF_ERROR(parts::AddRanks(store, *timeline_run, *nsys, *launches, config, r));
  KSCOPE_RETURN_IF_ERROR(parts::AddDataNotes(store, run_id, *timeline_run, *nsys, r.notes));
  if (launches->empty()) {
    r.notes.push_back(
        "no ncu data: kernel classes, roofline and measured FLOPs need a deep pass (kscope profile, "
        "or kscope import --run " +
        std::to_string(run_id) + " REPORT.ncu-rep)");
  }
  return r;
}

}  // namespace kscope::report
