#include "report/run_report.h"

#include "analysis/timeline/timeline.h"
#include "report/run_report_parts.h"

namespace kscope::report {

using nlohmann::json;

namespace {

json Text(const std::optional<std::string>& s) { return s ? json(*s) : json(); }
json Int(const std::optional<int64_t>& v) { return v ? json(*v) : json(); }

json RunJson(const store::RunInfo& r, int64_t timeline_run) {
  const auto& m = r.manifest;
  json j{{"id", r.id},
         {"label", Text(m.label)},
         {"model", Text(m.model)},
         {"dtype", Text(m.dtype)},
         {"batch", Int(m.batch)},
         {"tokens", Int(m.tokens)},
         {"gpu", Text(m.gpu)},
         {"driver", Text(m.driver)},
         {"cuda_version", Text(m.cuda_version)},
         {"nsys_export_version", Text(m.nsys_export_version)},
         {"nsys_tool_version", Text(m.nsys_tool_version)},
         {"ncu_version", Text(m.ncu_version)},
         {"command", Text(m.command)},
         {"status", r.status},
         {"imported_at", r.imported_at},
         {"tags", m.tags},
         {"timeline_run", timeline_run}};
  return j;
}

json TimelineJson(const analysis::TimelineDiagnosis& d) {
  json bins = json::array();
  for (const auto& b : d.bins) bins.push_back({{"start_ns", b.start}, {"end_ns", b.end}, {"busy_pct", b.busy_pct}});
  json gaps = json::array();
  for (const auto& g : d.largest_gaps) {
    json host = json::array();
    for (const auto& h : g.host) host.push_back({{"api", h.api}, {"calls", h.calls}, {"ns", h.ns}});
    gaps.push_back({{"start_ns", g.start}, {"end_ns", g.end}, {"duration_ns", g.end - g.start}, {"host", host}});
  }
  const int64_t start = d.windows.empty() ? 0 : d.windows.front().start;
  const int64_t end = d.windows.empty() ? 0 : d.windows.back().end;
  return {{"start_ns", start},
          {"end_ns", end},
          {"wall_ns", d.wall_ns},
          {"gpu_busy_ns", d.gpu_busy_ns},
          {"gpu_busy_pct", d.gpu_busy_pct},
          {"median_kernel_us", d.median_kernel_us},
          {"launches_per_s", d.launches_per_s},
          {"mean_launch_interval_us", d.mean_launch_interval_us},
          {"sync_ns", d.sync_ns},
          {"bins", bins},
          {"findings", parts::FindingsJson(d.findings)},
          {"largest_gaps", gaps}};
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

Result<json> BuildRunReport(store::Store& store, int64_t run_id, const config::Config& config) {
  auto run = store.GetRun(run_id);
  if (!run.ok()) return run.error();
  auto timeline_run = TimelineRun(store, run_id);
  if (!timeline_run.ok()) return timeline_run.error();
  auto tl_info = store.GetRun(*timeline_run);
  if (!tl_info.ok()) return tl_info.error();
  const std::string gpu = run->manifest.gpu.value_or(tl_info->manifest.gpu.value_or(""));
  const std::string dtype = !config.model.dtype.empty()
                                ? config.model.dtype
                                : run->manifest.dtype.value_or(tl_info->manifest.dtype.value_or(""));

  json r;
  r["kscope_report"] = kReportVersion;
  r["run"] = RunJson(*run, *timeline_run);
  if (r["run"]["gpu"].is_null() && !gpu.empty()) r["run"]["gpu"] = gpu;
  r["notes"] = json::array();
  if (*timeline_run != run_id) {
    r["notes"].push_back("the timeline, stages and kernel times are those of run " + std::to_string(*timeline_run) +
                         ", the discovery run whose launches this run profiled");
  }

  auto nsys = analysis::LoadNsysEvents(store, *timeline_run);
  if (!nsys.ok()) return nsys.error();
  auto events = analysis::LoadTimelineEvents(store, *timeline_run, &*nsys);
  if (!events.ok()) return events.error();
  const auto whole = analysis::DiagnoseTimeline(*events, {}, config.timeline);
  r["timeline"] = TimelineJson(whole);

  auto launches = analysis::LoadNcuLaunches(store, run_id);
  if (!launches.ok()) return launches.error();
  const auto verdicts = parts::Verdicts(*launches, config.classify);
  int64_t memop_ns = 0;
  for (size_t i = 0; i < events->memops.start.size(); ++i) memop_ns += events->memops.end[i] - events->memops.start[i];
  r["summary"] = {{"wall_ns", whole.wall_ns},
                  {"kernel_ns", whole.kernel_ns},
                  {"memop_ns", memop_ns},
                  {"gpu_busy_ns", whole.gpu_busy_ns},
                  {"gpu_busy_pct", whole.gpu_busy_pct},
                  {"kernels", whole.kernels},
                  {"memops", whole.memops},
                  {"api_calls", static_cast<int64_t>(events->api.start.size())},
                  {"profiled_launches", static_cast<int64_t>(launches->size())},
                  {"profiled_kernels", static_cast<int64_t>(verdicts.size())}};
  KSCOPE_RETURN_IF_ERROR(parts::AddKernels(store, *timeline_run, verdicts, r));
  parts::AddRoofline(*launches, config.classify, r);
  KSCOPE_RETURN_IF_ERROR(
      parts::AddStages(store, *timeline_run, *launches, *nsys, *events, verdicts, config, gpu, dtype, r));
  KSCOPE_RETURN_IF_ERROR(parts::AddDataNotes(store, run_id, *timeline_run, *nsys, r));
  if (launches->empty()) {
    r["notes"].push_back(
        "no ncu data: kernel classes, roofline and measured FLOPs need a deep pass (kscope profile, "
        "or kscope import --run " +
        std::to_string(run_id) + " REPORT.ncu-rep)");
  }
  return r;
}

}  // namespace kscope::report
