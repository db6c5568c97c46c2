// report.json's parts of a job of several ranks (ranks, straggler) and of the run's loop
// (headline, iterations, phases, workload); docs/report.md lists their keys.
#include "report/json_values.h"
#include "report/run_report_json.h"

namespace kscope::report {

using nlohmann::json;

json RankJson(const RankPart& r) {
  json stages = json::array();
  for (const auto& t : r.stages) {
    stages.push_back(
        {{"stage", t.stage}, {"instances", t.instances}, {"steady", t.steady}, {"median_wall_ns", t.median_wall_ns}});
  }
  json collectives = json::array();
  for (const auto& c : r.collectives) {
    json one = {{"kind", c.kind}, {"count", c.count}, {"ns", c.ns}};
    if (c.bytes) one["bytes"] = *c.bytes, one["sized"] = c.sized;  // where the capture gave message sizes
    collectives.push_back(std::move(one));
  }
  json gpu_stages = json::array();
  for (const auto& t : r.gpu_stages) {
    gpu_stages.push_back({{"stage", t.stage},
                          {"depth", t.depth},
                          {"instances", t.instances},
                          {"steady", t.steady},
                          {"first_wall_ns", t.first_wall_ns},
                          {"median_wall_ns", t.median_wall_ns},
                          {"gpu_busy_pct", t.gpu_busy_pct},
                          {"mfu_pct", Opt(t.mfu_pct)},
                          {"mbu_pct", Opt(t.mbu_pct)},
                          {"mfu_source", NonEmpty(t.mfu_source)}});
  }
  return {{"rank", r.rank.rank},
          {"rank_from", r.rank.rank_from},
          {"pid", r.rank.pid},
          {"device", r.rank.device},
          {"kernels", r.kernels},
          {"kernel_ns", r.kernel_ns},
          {"compute_ns", r.compute_ns},
          {"communication_ns", r.communication_ns},
          {"exposed_communication_ns", r.exposed_communication_ns},
          {"collective_wait_ns", r.collective_wait_ns},
          {"stages", stages},
          {"collectives", collectives},
          {"wall_ns", r.wall_ns},
          {"gpu_busy_ns", r.gpu_busy_ns},
          {"gpu_busy_pct", r.gpu_busy_pct},
          {"gpu_stages", gpu_stages},
          {"top_kernels", KernelsJson(r.top_kernels)}};
}

json StragglerJson(const StragglerPart& s) {
  return {{"rank", s.rank},
          {"matched_collectives", s.matched},
          {"matched_steady_collectives", s.matched_steady},
          {"late_ns", s.late_ns},
          {"step_stage", NonEmpty(s.step_stage)},
          {"steps", s.steps},
          {"late_per_step_ns", s.late_per_step_ns},
          {"extra_compute_per_step_ns", s.extra_compute_per_step_ns},
          {"advice", s.advice},
          {"overlap_advice", NonEmpty(s.overlap_advice)}};
}

namespace {

json VerdictJson(const analysis::BoundVerdict& v) {
  return {{"kind", v.kind},
          {"title", v.title},
          {"evidence", v.evidence},
          {"wall_ns", v.wall_ns},
          {"gpu_busy_ns", v.gpu_busy_ns},
          {"gpu_busy_pct", v.gpu_busy_pct},
          {"idle_ns", v.idle_ns},
          {"idle",
           {{"launch_gaps_ns", v.launch_gap_ns},
            {"after_synchronization_ns", v.after_sync_ns},
            {"compilation_ns", v.compilation_ns},
            {"host_in_cuda_ns", v.host_cuda_ns},
            {"host_outside_cuda_ns", v.host_other_ns}}}};
}

}  // namespace

json HeadlineJson(const HeadlinePart& h) {
  json out = {{"scope", h.scope}, {"verdict", VerdictJson(h.verdict)}};
  if (h.whole_run) out["whole_run"] = VerdictJson(*h.whole_run);
  return out;
}

json IterationsJson(const IterationPart& p) {
  json rows = json::array();
  for (const auto& r : p.rows) {
    rows.push_back({{"index", r.index},
                    {"kind", r.kind},
                    {"start_ns", r.start_ns},
                    {"wall_ns", r.wall_ns},
                    {"kernels", r.kernels},
                    {"kernel_ns", r.kernel_ns},
                    {"gpu_busy_pct", r.gpu_busy_pct}});
    if (r.gpu_metrics) rows.back()["gpu_metrics"] = GpuMetricsJson(*r.gpu_metrics);
  }
  json out = {{"source", p.source},
              {"evidence", p.evidence},
              {"period_kernels", p.period_kernels},
              {"loop_iterations", p.loop_iterations},
              {"differing", p.differing},
              {"warmup", p.warmup},
              {"steady", p.steady},
              {"graph_launches", p.graph_launches},
              {"first_wall_ns", p.first_wall_ns},
              {"steady_median_wall_ns", p.steady_median_wall_ns},
              {"steady_gpu_busy_pct", p.steady_gpu_busy_pct},
              {"kernel_coverage_pct", p.kernel_coverage_pct},
              {"mfu", MfuJson(p.mfu)},
              {"findings", FindingsJson(p.findings)},
              {"rows", rows}};
  if (p.gpu_metrics) out["gpu_metrics"] = GpuMetricsJson(*p.gpu_metrics);
  out["boundary"] = p.boundary;
  out["repeat_kernels"] = p.repeat_kernels;
  out["sync_repeats"] = p.sync_repeats;
  out["boundary_gap_ratio"] = p.boundary_gap_ratio ? json(*p.boundary_gap_ratio) : json();
  out["note"] = p.note ? json(*p.note) : json();
  return out;
}

json PhasesJson(const std::vector<analysis::RunPhase>& phases) {
  json out = json::array();
  for (const auto& p : phases) {
    out.push_back({{"kind", p.kind},
                   {"wall_ns", p.wall_ns},
                   {"share_pct", p.share_pct},
                   {"gpu_busy_ns", p.gpu_busy_ns},
                   {"gpu_busy_pct", p.gpu_busy_pct},
                   {"kernels", p.kernels},
                   {"start_ns", p.start},
                   {"end_ns", p.end},
                   {"parts", p.parts},
                   {"between_ns", p.between_ns}});
  }
  return out;
}

json WorkloadJson(const WorkloadPart& w) {
  return {{"graph_launches", w.graph_launches},       {"graph_kernels", w.graph_kernels},
          {"graph_kernel_pct", w.graph_kernel_pct},   {"triton_kernels", w.triton_kernels},
          {"triton_kernel_pct", w.triton_kernel_pct}, {"module_loads", w.module_loads}};
}

}  // namespace kscope::report
