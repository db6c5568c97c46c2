#include "report/run_report_json.h"

#include <cmath>

#include "report/json_values.h"

namespace kscope::report {

using nlohmann::json;

namespace {

json RunFields(const RunPart& r);

json RunJson(const RunPart& r) {
  json j = RunFields(r);
  // The report of one rank (--rank) says which; a run's report has no such key.
  if (r.rank) {
    j["rank"] = {{"rank", r.rank->rank},
                 {"rank_from", r.rank->rank_from},
                 {"pid", r.rank->pid},
                 {"device", r.rank->device},
                 {"kernels", r.rank->kernels}};
  }
  return j;
}

json RunFields(const RunPart& r) {
  const auto& m = r.manifest;
  json j = {{"id", r.id},
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
            {"timeline_run", r.timeline_run}};
  if (r.source) j["source"] = *r.source;  // only for a run that came from a trace
  return j;
}

json SummaryJson(const SummaryPart& s) {
  return {{"wall_ns", s.wall_ns},
          {"kernel_ns", s.kernel_ns},
          {"memop_ns", s.memop_ns},
          {"gpu_busy_ns", s.gpu_busy_ns},
          {"gpu_busy_pct", s.gpu_busy_pct},
          {"kernels", s.kernels},
          {"memops", s.memops},
          {"api_calls", s.api_calls},
          {"profiled_launches", s.profiled_launches},
          {"profiled_kernels", s.profiled_kernels}};
}

}  // namespace

json FindingsJson(const std::vector<analysis::Finding>& findings) {
  json out = json::array();
  for (const auto& f : findings) {
    json worth;
    if (f.worth) {
      worth = {{"edit", f.worth->edit},
               {"steps", f.worth->steps},
               {"step_ns", f.worth->step_ns},
               {"saving_ns", f.worth->saving_ns},
               {"saving_pct", f.worth->saving_pct},
               {"upper_bound", f.worth->upper_bound}};
    }
    out.push_back({{"kind", f.kind},
                   {"title", f.title},
                   {"detail", f.detail},
                   {"size", f.size},
                   {"size_unit", f.size_unit},
                   {"fix", f.fix},
                   {"worth", worth}});
  }
  return out;
}

namespace {

json TimelineJson(const TimelinePart& t) {
  const analysis::TimelineDiagnosis& d = t.diagnosis;
  json bins = json::array();
  for (const auto& b : d.bins) bins.push_back({{"start_ns", b.start}, {"end_ns", b.end}, {"busy_pct", b.busy_pct}});
  json gaps = json::array();
  for (const auto& g : d.largest_gaps) {
    json host = json::array();
    for (const auto& h : g.host) host.push_back({{"api", h.api}, {"calls", h.calls}, {"ns", h.ns}});
    gaps.push_back({{"start_ns", g.start}, {"end_ns", g.end}, {"duration_ns", g.end - g.start}, {"host", host}});
  }
  return {{"start_ns", t.start_ns},
          {"end_ns", t.end_ns},
          {"wall_ns", d.wall_ns},
          {"gpu_busy_ns", d.gpu_busy_ns},
          {"gpu_busy_pct", d.gpu_busy_pct},
          {"median_kernel_us", d.median_kernel_us},
          {"launches_per_s", d.launches_per_s},
          {"mean_launch_interval_us", d.mean_launch_interval_us},
          {"sync_ns", d.sync_ns},
          {"bins", bins},
          {"findings", FindingsJson(d.findings)},
          {"largest_gaps", gaps}};
}

json PeakJson(const std::optional<analysis::StagePeak>& p) {
  if (!p) return json();
  return {{"precision", p->precision},
          {"flops_per_s", p->flops_per_s},
          {"source", p->source},
          {"clock_hz", Opt(p->clock_hz)}};
}

}  // namespace

json MfuJson(const analysis::StageMfu& m) {
  json lines = json::array();
  for (const auto& l : m.lines) {
    lines.push_back({{"name", l.name},
                     {"formula", l.formula},
                     {"flops", l.flops},
                     {"flops_per_s", Opt(l.flops_per_s)},
                     {"mfu_pct", Opt(l.mfu_pct)}});
  }
  return {{"instances", m.instances},
          {"wall_ns", m.wall_ns},
          {"kernel_ns", m.kernel_ns},
          {"measured_flops", Opt(m.measured_flops)},
          {"measured_by_precision", m.measured_by_precision},
          {"coverage_pct", m.coverage_pct},
          {"measured_launches", m.measured_launches},
          {"extrapolated_launches", m.extrapolated_launches},
          {"peak", PeakJson(m.peak)},
          {"ncu_peak", PeakJson(m.ncu_peak)},
          {"lines", lines},
          {"mfu_pct", Opt(m.mfu_pct)},
          {"mfu_source", NonEmpty(m.mfu_source)},
          {"mfu_line", NonEmpty(m.mfu_line)},
          {"kernel_mfu_pct", Opt(m.kernel_mfu_pct)},
          {"bytes", Opt(m.bytes)},
          {"bytes_source", NonEmpty(m.bytes_source)},
          {"achieved_bytes_per_s", Opt(m.achieved_bytes_per_s)},
          {"peak_bytes_per_s", Opt(m.peak_bytes_per_s)},
          {"mbu_pct", Opt(m.mbu_pct)},
          {"notes", m.notes}};
}

namespace {

json SpreadJson(const analysis::InstanceSpread& s) {
  return {{"first_ns", s.first}, {"median_ns", s.median}, {"min_ns", s.min}, {"max_ns", s.max}};
}

json SteadyJson(const analysis::StageSteady& s) {
  return {{"warmup", s.warmup},
          {"instances", s.steady},
          {"ranks", s.ranks},
          {"range", SpreadJson(s.range)},
          {"gpu", SpreadJson(s.gpu)},
          {"wall", SpreadJson(s.wall)},
          {"wall_ns", s.wall_ns},
          {"gpu_ns", s.gpu_ns},
          {"kernel_ns", s.kernel_ns},
          {"ops", s.ops},
          {"median_wall_ns", s.median_wall_ns},
          {"median_gpu_ns", s.median_gpu_ns}};
}

json BackwardJson(const std::optional<BackwardPart>& b) {
  if (!b) return json();
  json ops = json::array();
  for (const auto& o : b->by_forward_op) ops.push_back({{"op", o.op}, {"ops", o.ops}, {"kernel_ns", o.kernel_ns}});
  return {{"ops", b->ops}, {"kernel_ns", b->kernel_ns}, {"memop_ns", b->memop_ns}, {"by_forward_op", ops}};
}

json OtherThreadsJson(const OtherThreadsPart& o) {
  json threads = json::array();
  for (const auto& t : o.threads) {
    threads.push_back({{"global_tid", t.global_tid},
                       {"tid", t.global_tid & 0xFFFFFF},
                       {"name", t.name},
                       {"ops", t.ops},
                       {"kernels", t.kernels},
                       {"kernel_ns", t.kernel_ns},
                       {"memops", t.memops},
                       {"memop_ns", t.memop_ns}});
  }
  return {{"ops", o.ops}, {"kernel_ns", o.kernel_ns}, {"memop_ns", o.memop_ns}, {"threads", threads}};
}

json StageKernelsJson(const std::vector<StageKernelRow>& kernels) {
  json top = json::array();
  for (const auto& k : kernels) {
    top.push_back({{"name", k.name},
                   {"short_name", k.short_name},
                   {"family", k.family},
                   {"launches", k.launches},
                   {"total_ns", k.total_ns},
                   {"share_pct", k.share_pct},
                   {"bottleneck", Text(k.bottleneck)}});
  }
  return top;
}

}  // namespace

// Only where the run has nsys's GPU metrics: report.json of a run without stays as it was.
json GpuMetricsJson(const analysis::SampledGpuMetrics& m) {
  return {{"source", m.source},
          {"samples", m.samples},
          {"gr_active_pct", Opt(m.gr_active_pct)},
          {"sm_active_pct", Opt(m.sm_active_pct)},
          {"sm_issue_pct", Opt(m.sm_issue_pct)},
          {"tensor_active_pct", Opt(m.tensor_active_pct)},
          {"dram_read_pct", Opt(m.dram_read_pct)},
          {"dram_write_pct", Opt(m.dram_write_pct)}};
}

namespace {

json StageJson(const StagePart& s) {
  json j = {{"id", s.id},
            {"name", s.name},
            {"display_name", s.display_name},
            {"text", s.text},
            {"domain", s.domain},
            {"style", s.style},
            {"parent", s.parent ? json(*s.parent) : json()},
            {"depth", s.depth},
            {"instances", s.instances},
            {"range_ns", s.range_ns},
            {"proj_instances", s.proj_instances},
            {"proj_range_ns", s.proj_range_ns},
            {"proj_ns", s.proj_ns},
            {"gpu_ops", s.gpu_ops},
            {"ops", s.ops},
            {"kernels", s.kernels},
            {"kernel_ns", s.kernel_ns},
            {"memops", s.memops},
            {"memop_ns", s.memop_ns},
            {"other_threads", OtherThreadsJson(s.other_threads)},
            {"backward_of_forward", BackwardJson(s.backward_of_forward)},
            {"steady", SteadyJson(s.steady)},
            {"gpu_busy_ns", s.gpu_busy_ns},
            {"gpu_busy_pct", s.gpu_busy_pct},
            {"median_kernel_us", s.median_kernel_us},
            {"launches_per_s", s.launches_per_s},
            {"top_kernels", StageKernelsJson(s.top_kernels)},
            {"mfu", MfuJson(s.mfu)},
            {"findings", FindingsJson(s.findings)}};
  if (s.gpu_metrics) j["gpu_metrics"] = GpuMetricsJson(*s.gpu_metrics);
  return j;
}

json TopKernelJson(const TopKernel& k) {
  json j{{"rank", k.rank},
         {"name", k.name},
         {"base", k.base},
         {"short_name", k.short_name},
         {"family", k.family},
         {"library", k.library},
         {"launches", k.launches},
         {"total_ns", k.total_ns},
         {"avg_ns", k.avg_ns},
         {"share_pct", k.share_pct},
         {"bottleneck", json()},
         {"sm_pct", json()},
         {"dram_pct", json()},
         {"l1_hit_pct", json()},
         {"l2_hit_pct", json()},
         {"achieved_occupancy_pct", json()},
         {"top_stall", json()},
         {"stalls_total", json()},
         {"stall_unit", json()},
         {"why", json()},
         {"rests_on", json()},
         {"stalls", json()},
         {"critical_path_pct", Opt(k.path_pct)},
         {"worth_2x_ns", k.worth_2x ? json(k.worth_2x->saving_ns) : json()},
         {"worth_2x_pct", k.worth_2x ? json(k.worth_2x->saving_pct) : json()}};
  if (!k.verdict) return j;
  const KernelVerdict& v = *k.verdict;
  j["bottleneck"] = v.bottleneck;
  j["sm_pct"] = Opt(v.sm_pct);
  j["dram_pct"] = Opt(v.dram_pct);
  j["l1_hit_pct"] = Opt(v.l1_hit_pct);
  j["l2_hit_pct"] = Opt(v.l2_hit_pct);
  j["achieved_occupancy_pct"] = Opt(v.achieved_occupancy_pct);
  j["top_stall"] = NonEmpty(v.top_stall);
  j["stalls_total"] = Opt(v.stalls_total);
  j["stall_unit"] = NonEmpty(v.stall_unit);
  j["why"] = v.why;
  j["rests_on"] = v.rests_on;
  j["stalls"] = StallsJson(v.stalls);
  return j;
}

}  // namespace

json KernelsJson(const std::vector<TopKernel>& kernels) {
  json out = json::array();
  for (const auto& k : kernels) out.push_back(TopKernelJson(k));
  return out;
}

namespace {

json MixJson(const std::vector<BottleneckShare>& mix) {
  json out = json::array();
  for (const auto& m : mix) {
    out.push_back(
        {{"bottleneck", m.bottleneck}, {"total_ns", m.total_ns}, {"share_pct", m.share_pct}, {"kernels", m.kernels}});
  }
  return out;
}

json RooflineJson(const RooflinePart& r) {
  json points = json::array();
  for (const auto& p : r.points) {
    points.push_back({{"kernel", p.kernel},
                      {"short_name", p.short_name},
                      {"base", p.base},
                      {"family", p.family},
                      {"grid", p.grid},
                      {"block", p.block},
                      {"launches", p.launches},
                      {"precision", p.precision},
                      {"intensity", p.intensity},
                      {"achieved_flops", p.achieved_flops},
                      {"peak_flops", p.peak_flops},
                      {"peak_dram_bytes_per_s", p.peak_dram_bytes_per_s},
                      {"ridge", p.ridge},
                      {"pct_of_roof", p.pct_of_roof},
                      {"bottleneck", p.bottleneck}});
  }
  json roofs = json::array();
  for (const auto& roof : r.roofs) {
    roofs.push_back({{"precision", roof.precision},
                     {"peak_flops", roof.peak_flops},
                     {"peak_dram_bytes_per_s", roof.peak_dram_bytes_per_s},
                     {"ridge", roof.ridge}});
  }
  return {{"points", points}, {"roofs", roofs}};
}

}  // namespace

json DrawingJson(const std::optional<PathDrawing>& d) {
  if (!d) return json();
  json lanes = json::array();
  for (const auto& l : d->lanes) lanes.push_back({{"name", l.name}, {"rank", l.rank < 0 ? json() : json(l.rank)}});
  json pieces = json::array();
  for (const auto& p : d->pieces) {
    pieces.push_back(
        {{"lane", p.lane}, {"start_ns", p.start_ns}, {"end_ns", p.end_ns}, {"part", p.part}, {"what", p.what}});
  }
  return {{"step", d->step}, {"start_ns", d->start_ns}, {"end_ns", d->end_ns},
          {"lanes", lanes},  {"pieces", pieces},        {"pieces_left_out", d->pieces_left_out}};
}

json CriticalPathJson(const std::optional<CriticalPathPart>& p) {
  if (!p) return json();
  json parts = json::object();
  for (const auto& [part, ns] : p->parts) parts[part] = ns;
  json kernels = json::array();
  for (const auto& k : p->kernels) {
    kernels.push_back({{"name", k.name},
                       {"short_name", k.short_name},
                       {"launches_per_step", k.launches},
                       {"gpu_ns_per_step", k.gpu_ns},
                       {"path_ns_per_step", k.path_ns}});
  }
  json ranks = json::array();
  for (const auto& r : p->ranks) {
    json rp = json::object();
    for (const auto& [part, ns] : r.parts) rp[part] = ns;
    ranks.push_back({{"rank", r.rank}, {"parts_ns_per_step", rp}});
  }
  return {{"steps", p->steps},
          {"marked_by", p->marked_by},
          {"ranks", ranks},
          {"steps_count", p->steps_count},
          {"typical_steps", p->typical_steps},
          {"median_step_ns", p->median_step_ns},
          {"typical_step_ns", p->typical_step_ns},
          {"parts_ns_per_step", parts},
          {"kernels", kernels},
          {"drawing", DrawingJson(p->drawing)},
          {"held_by", p->held_by.empty() ? json() : json(p->held_by)},
          {"held_by_ns_per_step", p->held_by.empty() ? json() : json(p->held_by_ns)}};
}

json ToJson(const RunReport& report) {
  json stages = json::array();
  for (const auto& s : report.stages) stages.push_back(StageJson(s));
  json out = {{"kscope_report", kReportVersion},
              {"incomplete", Text(report.incomplete)},
              {"run", RunJson(report.run)},
              {"summary", SummaryJson(report.summary)},
              {"timeline", TimelineJson(report.timeline)},
              {"stages", stages},
              {"top_kernels", KernelsJson(report.top_kernels)},
              {"profiled_kernels", ProfiledKernelsJson(report.profiled)},
              {"bottleneck_mix", MixJson(report.bottleneck_mix)},
              {"roofline", RooflineJson(report.roofline)},
              {"critical_path", CriticalPathJson(report.critical_path)},
              {"notes", report.notes}};
  // The parts of a run of several ranks: absent for one process.
  if (!report.ranks.empty()) {
    json ranks = json::array();
    for (const auto& r : report.ranks) ranks.push_back(RankJson(r));
    out["ranks"] = ranks;
  }
  if (report.straggler) out["straggler"] = StragglerJson(*report.straggler);
  // The loop and the phases (report/iteration_part.h).
  if (report.headline) out["headline"] = HeadlineJson(*report.headline);
  if (report.iterations) out["iterations"] = IterationsJson(*report.iterations);
  if (!report.phases.empty()) out["phases"] = PhasesJson(report.phases);
  out["workload"] = WorkloadJson(report.workload);
  return out;
}

std::string ReportJsonText(const RunReport& report) {
  return ToJson(report).dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace kscope::report
