// The stages part of a run's report: NVTX stages with their GPU figures, top kernels,
// MFU/MBU and timeline diagnosis.
#include <fmt/format.h>

#include <set>
#include <unordered_map>

#include "analysis/names/kernel_names.h"
#include "analysis/stages/model_flops.h"
#include "analysis/stages/stage_mfu.h"
#include "analysis/stages/stage_steady.h"
#include "analysis/stages/stages.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

using nlohmann::json;

namespace {

json PeakJson(const std::optional<analysis::StagePeak>& p) {
  if (!p) return json();
  return {{"precision", p->precision},
          {"flops_per_s", p->flops_per_s},
          {"source", p->source},
          {"clock_hz", Opt(p->clock_hz)}};
}

json MfuJson(const analysis::StageMfu& m) {
  auto str = [](const std::string& s) { return s.empty() ? json() : json(s); };
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
          {"mfu_source", str(m.mfu_source)},
          {"mfu_line", str(m.mfu_line)},
          {"kernel_mfu_pct", Opt(m.kernel_mfu_pct)},
          {"bytes", Opt(m.bytes)},
          {"bytes_source", str(m.bytes_source)},
          {"achieved_bytes_per_s", Opt(m.achieved_bytes_per_s)},
          {"peak_bytes_per_s", Opt(m.peak_bytes_per_s)},
          {"mbu_pct", Opt(m.mbu_pct)},
          {"notes", m.notes}};
}

json SpreadJson(const analysis::InstanceSpread& s) {
  return {{"first_ns", s.first}, {"median_ns", s.median}, {"min_ns", s.min}, {"max_ns", s.max}};
}

json SteadyJson(const analysis::StageSteady& s) {
  return {{"warmup", s.warmup},
          {"instances", s.steady},
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

json BackwardJson(const analysis::Stage& s) {
  if (s.backward_ops == 0) return json();
  json ops = json::array();
  for (const auto& b : s.backward_by_op) {
    ops.push_back({{"op", b.op}, {"ops", b.ops}, {"kernel_ns", b.kernel_ns}});
  }
  return {{"ops", s.backward_ops},
          {"kernel_ns", s.backward_kernel_ns},
          {"memop_ns", s.backward_memop_ns},
          {"by_forward_op", ops}};
}

json OtherThreadsJson(const analysis::Stage& s) {
  json threads = json::array();
  for (const auto& t : s.other_threads) {
    threads.push_back({{"global_tid", t.global_tid},
                       {"tid", t.global_tid & 0xFFFFFF},
                       {"name", t.name},
                       {"ops", t.ops},
                       {"kernels", t.kernels},
                       {"kernel_ns", t.kernel_ns},
                       {"memops", t.memops},
                       {"memop_ns", t.memop_ns}});
  }
  return {{"ops", s.other_ops}, {"kernel_ns", s.other_kernel_ns}, {"memop_ns", s.other_memop_ns}, {"threads", threads}};
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
  auto model = analysis::ResolveModel(config.model);
  if (!model.ok()) return model.error();
  const auto work = analysis::GatherProfiledWork(launches, timeline_run, *rows);
  std::vector<int64_t> name_ids;
  for (const auto& s : *stages) {
    for (const auto& k : s.kernels_by_time) name_ids.push_back(k.name_id);
  }
  auto names = store.Strings(name_ids);
  if (!names.ok()) return names.error();

  json list = json::array();
  int64_t torch_ops = 0;
  std::set<std::string> library_ranges;
  for (const auto& s : *stages) {
    if (s.torch_op) {  // PyTorch's per-operator ranges: used above, not listed as stages
      ++torch_ops;
      continue;
    }
    if (s.library) {  // one range per library call (CUB's scans, NCCL's collectives)
      library_ranges.insert(s.name);
      continue;
    }
    const auto steady = analysis::SteadyState(s, config.stages.warmup);
    // The verdict and the row's GPU figures: the steady instances, work of every thread.
    const auto diagnosis = analysis::DiagnoseTimeline(events, steady.windows, config.timeline);
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
    const auto mfu = analysis::ComputeStageMfu(s, steady, *rows, work, *model, config.model, gpu, dtype);
    list.push_back({{"id", s.id},
                    {"name", s.name},
                    {"display_name", analysis::DisplayName(s)},
                    {"text", s.text},
                    {"domain", s.domain},
                    {"style", s.style},
                    {"parent", s.parent >= 0 ? json(s.parent) : json()},
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
                    {"other_threads", OtherThreadsJson(s)},
                    {"backward_of_forward", BackwardJson(s)},
                    {"steady", SteadyJson(steady)},
                    {"gpu_busy_ns", diagnosis.gpu_busy_ns},
                    {"gpu_busy_pct", diagnosis.gpu_busy_pct},
                    {"median_kernel_us", diagnosis.median_kernel_us},
                    {"launches_per_s", diagnosis.launches_per_s},
                    {"top_kernels", top},
                    {"mfu", MfuJson(mfu)},
                    {"findings", FindingsJson(diagnosis.findings)}});
  }
  out["stages"] = list;
  if (torch_ops > 0) {
    out["notes"].push_back(fmt::format(
        "{} of PyTorch's operator ranges (nsys --pytorch=autograd-nvtx) tie each backward kernel to the forward op "
        "and stage that made it (backward_of_forward); they are not listed as stages",
        torch_ops));
  }
  if (!library_ranges.empty()) {
    std::string which;
    for (const auto& n : library_ranges) which += (which.empty() ? "" : ", ") + n;
    const bool one = library_ranges.size() == 1;
    out["notes"].push_back(
        fmt::format("{} NVTX range{} that a library opens around each of its calls {} not listed as "
                    "{}: {}",
                    library_ranges.size(), one ? "" : "s", one ? "is" : "are", one ? "a stage" : "stages", which));
  }
  return Status::Ok();
}

}  // namespace kscope::report::parts
