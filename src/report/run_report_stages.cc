// The stages part of a run's report: NVTX stages with their GPU figures, top kernels,
// MFU/MBU and timeline diagnosis.
#include <unordered_map>

#include "analysis/kernel_names.h"
#include "analysis/stage_mfu.h"
#include "analysis/stages.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

using nlohmann::json;

namespace {

json MfuJson(const analysis::StageMfu& m) {
  auto str = [](const std::string& s) { return s.empty() ? json() : json(s); };
  return {{"flops", Opt(m.flops)},
          {"flops_source", str(m.flops_source)},
          {"ncu_flops", Opt(m.ncu_flops)},
          {"analytic_flops", Opt(m.analytic_flops)},
          {"precision", str(m.precision)},
          {"coverage_pct", m.coverage_pct},
          {"measured_launches", m.measured_launches},
          {"extrapolated_launches", m.extrapolated_launches},
          {"achieved_flops_per_s", Opt(m.achieved_flops_per_s)},
          {"peak_flops_per_s", Opt(m.peak_flops_per_s)},
          {"peak_source", str(m.peak_source)},
          {"mfu_pct", Opt(m.mfu_pct)},
          {"kernel_mfu_pct", Opt(m.kernel_mfu_pct)},
          {"datasheet_peak_flops_per_s", Opt(m.datasheet_peak_flops_per_s)},
          {"datasheet_mfu_pct", Opt(m.datasheet_mfu_pct)},
          {"bytes", Opt(m.bytes)},
          {"bytes_source", str(m.bytes_source)},
          {"achieved_bytes_per_s", Opt(m.achieved_bytes_per_s)},
          {"peak_bytes_per_s", Opt(m.peak_bytes_per_s)},
          {"mbu_pct", Opt(m.mbu_pct)},
          {"notes", m.notes}};
}

}  // namespace

Status AddStages(store::Store& store, int64_t timeline_run, const std::vector<analysis::NcuLaunch>& launches,
                 const analysis::NsysEvents& nsys, const analysis::TimelineEvents& events,
                 const std::map<std::string, KernelVerdict>& verdicts, const config::Config& config,
                 const std::string& gpu, const std::string& dtype, json& out) {
  auto stages = analysis::ComputeStages(store, timeline_run, &nsys);
  if (!stages.ok()) return stages.error();
  auto rows = analysis::LoadKernelRows(store, timeline_run, &nsys);
  if (!rows.ok()) return rows.error();
  const auto work = analysis::GatherProfiledWork(launches, timeline_run, *rows);
  std::vector<int64_t> name_ids;
  for (const auto& s : *stages) {
    for (const auto& k : s.kernels_by_time) name_ids.push_back(k.name_id);
  }
  auto names = store.Strings(name_ids);
  if (!names.ok()) return names.error();

  json list = json::array();
  for (const auto& s : *stages) {
    const auto diagnosis = analysis::DiagnoseTimeline(events, s.windows, config.timeline);
    json top = json::array();
    for (size_t i = 0; i < s.kernels_by_time.size() && i < 5; ++i) {
      const auto& k = s.kernels_by_time[i];
      const std::string& name = names->at(k.name_id);
      auto v = verdicts.find(analysis::KernelMatchKey(name));
      top.push_back(
          {{"name", name},
           {"family", analysis::IdentifyKernel(name).family},
           {"launches", k.launches},
           {"total_ns", k.total_ns},
           {"share_pct",
            s.kernel_ns > 0 ? 100.0 * static_cast<double>(k.total_ns) / static_cast<double>(s.kernel_ns) : 0.0},
           {"bottleneck", v == verdicts.end() ? json() : json(v->second.bottleneck)}});
    }
    const auto mfu = analysis::ComputeStageMfu(s, *rows, work, config.model, gpu, dtype);
    list.push_back({{"id", s.id},
                    {"name", s.name},
                    {"text", s.text},
                    {"style", s.style},
                    {"parent", s.parent >= 0 ? json(s.parent) : json()},
                    {"depth", s.depth},
                    {"instances", s.instances},
                    {"range_ns", s.range_ns},
                    {"proj_instances", s.proj_instances},
                    {"proj_range_ns", s.proj_range_ns},
                    {"proj_ns", s.proj_ns},
                    {"gpu_ops", s.gpu_ops},
                    {"kernels", s.kernels},
                    {"kernel_ns", s.kernel_ns},
                    {"memops", s.memops},
                    {"memop_ns", s.memop_ns},
                    {"gpu_busy_ns", diagnosis.gpu_busy_ns},
                    {"gpu_busy_pct", diagnosis.gpu_busy_pct},
                    {"median_kernel_us", diagnosis.median_kernel_us},
                    {"launches_per_s", diagnosis.launches_per_s},
                    {"top_kernels", top},
                    {"mfu", MfuJson(mfu)},
                    {"findings", FindingsJson(diagnosis.findings)}});
  }
  out["stages"] = list;
  return Status::Ok();
}

}  // namespace kscope::report::parts
