// The stages part of a run's report: NVTX stages with their GPU figures, top kernels,
// MFU/MBU and timeline diagnosis.
#include <fmt/format.h>

#include <set>
#include <unordered_map>

#include "analysis/names/kernel_names.h"
#include "analysis/stages/model_flops.h"
#include "analysis/stages/stage_mfu.h"
#include "analysis/stages/stage_projection.h"
#include "analysis/stages/stage_steady.h"
#include "analysis/stages/stages.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

namespace {

// The ranges that are not stages: PyTorch's per-operator ranges (used to tie backward work to
// forward ops) and the ranges a library opens around each of its calls (CUB's scans, NCCL's
// collectives).
struct LeftOut {
  int64_t torch_ops = 0;
  std::set<std::string> library_ranges;
};

// Where a run's operator ranges came from: a Kineto trace's cpu_op events, or the NVTX ranges
// nsys records with --pytorch=autograd-nvtx.
std::string_view OpRangeOrigin(const std::optional<std::string>& source) {
  return source ? "the trace's cpu_op events" : "nsys --pytorch=autograd-nvtx";
}

void AddLeftOutNotes(const LeftOut& left_out, std::string_view op_origin, std::vector<std::string>& notes) {
  if (left_out.torch_ops > 0) {
    notes.push_back(
        fmt::format("{} of PyTorch's operator ranges ({}) tie each backward kernel to the forward op "
                    "and stage that made it (backward_of_forward); they are not listed as stages",
                    left_out.torch_ops, op_origin));
  }
  if (!left_out.library_ranges.empty()) {
    std::string which;
    for (const auto& n : left_out.library_ranges) which += (which.empty() ? "" : ", ") + n;
    const bool one = left_out.library_ranges.size() == 1;
    notes.push_back(fmt::format(
        "{} NVTX range{} that a library opens around each of its calls {} not listed as "
        "{}: {}",
        left_out.library_ranges.size(), one ? "" : "s", one ? "is" : "are", one ? "a stage" : "stages", which));
  }
}

// The stage's five largest kernels, with ncu's class where profiled.
std::vector<StageKernelRow> TopKernels(const analysis::Stage& s, const std::unordered_map<int64_t, std::string>& names,
                                       const std::map<std::string, KernelVerdict>& verdicts) {
  std::vector<StageKernelRow> top;
  for (size_t i = 0; i < s.kernels_by_time.size() && i < 5; ++i) {
    const auto& k = s.kernels_by_time[i];
    const std::string& name = names.at(k.name_id);
    auto v = verdicts.find(analysis::KernelMatchKey(name));
    top.push_back({.name = name,
                   .family = analysis::IdentifyKernel(name).family,
                   .launches = k.launches,
                   .total_ns = k.total_ns,
                   .share_pct = s.kernel_ns > 0
                                    ? 100.0 * static_cast<double>(k.total_ns) / static_cast<double>(s.kernel_ns)
                                    : 0.0,
                   .bottleneck = v == verdicts.end() ? std::nullopt : std::optional(v->second.bottleneck)});
  }
  return top;
}

}  // namespace

// The optional figures of a stage's MFU as report.json holds them: absent when not finite.
analysis::StageMfu ReportedMfu(analysis::StageMfu m) {
  for (auto* figure : {&m.measured_flops, &m.kernel_mfu_pct, &m.mfu_pct, &m.bytes, &m.achieved_bytes_per_s,
                       &m.peak_bytes_per_s, &m.mbu_pct}) {
    *figure = Finite(*figure);
  }
  for (auto* peak : {&m.peak, &m.ncu_peak}) {
    if (*peak) (*peak)->clock_hz = Finite((*peak)->clock_hz);
  }
  for (auto& l : m.lines) {
    l.flops_per_s = Finite(l.flops_per_s);
    l.mfu_pct = Finite(l.mfu_pct);
  }
  return m;
}

namespace {

// A stage's own figures (nsys's and the work launched inside), copied from the analysis.
StagePart StageFigures(const analysis::Stage& s) {
  StagePart p{.id = s.id,
              .name = s.name,
              .display_name = analysis::DisplayName(s),
              .text = s.text,
              .domain = s.domain,
              .style = s.style,
              .parent = s.parent >= 0 ? std::optional(s.parent) : std::nullopt,
              .depth = s.depth,
              .instances = s.instances,
              .range_ns = s.range_ns,
              .proj_instances = s.proj_instances,
              .proj_range_ns = s.proj_range_ns,
              .proj_ns = s.proj_ns,
              .gpu_ops = s.gpu_ops,
              .ops = s.ops,
              .kernels = s.kernels,
              .kernel_ns = s.kernel_ns,
              .memops = s.memops,
              .memop_ns = s.memop_ns};
  p.other_threads = {s.other_ops, s.other_kernel_ns, s.other_memop_ns, s.other_threads};
  if (s.backward_ops != 0) {
    p.backward_of_forward = BackwardPart{s.backward_ops, s.backward_kernel_ns, s.backward_memop_ns, s.backward_by_op};
  }
  return p;
}

}  // namespace

Status AddStages(store::Store& store, const StageInputs& in, RunReport& out) {
  const analysis::NsysEvents& scoped = in.rank != nullptr ? in.rank->events : in.nsys;
  auto stages = analysis::ComputeStages(store, in.timeline_run, &scoped);
  if (!stages.ok()) return stages.error();
  // A rank's stages: nsys's projection figures of its own ranges (the stored ones are the run's).
  if (in.rank != nullptr) KSCOPE_RETURN_IF_ERROR(analysis::ProjectStages(store, scoped, *stages));
  auto rows = analysis::LoadKernelRows(store, in.timeline_run, &in.nsys);
  if (!rows.ok()) return rows.error();
  auto model = analysis::ResolveModel(in.config.model);
  if (!model.ok()) return model.error();
  // The work ncu measured per launch configuration, wherever it profiled it; a rank's stages
  // apply it to the rank's own launches of each configuration.
  const auto work = analysis::GatherProfiledWork(in.launches, in.timeline_run, *rows);
  if (in.rank != nullptr) *rows = analysis::AtRows(*rows, in.rank->kernel_rows);
  std::vector<int64_t> name_ids;
  for (const auto& s : *stages) {
    for (const auto& k : s.kernels_by_time) name_ids.push_back(k.name_id);
  }
  auto names = store.Strings(name_ids);
  if (!names.ok()) return names.error();
  auto sampled = analysis::LoadGpuMetrics(store, in.timeline_run);
  if (!sampled.ok()) return sampled.error();

  LeftOut left_out;
  for (const auto& s : *stages) {
    if (s.torch_op) {  // PyTorch's per-operator ranges: used above, not listed as stages
      ++left_out.torch_ops;
      continue;
    }
    if (s.library) {  // one range per library call (CUB's scans, NCCL's collectives)
      left_out.library_ranges.insert(s.name);
      continue;
    }
    StagePart p = StageFigures(s);
    p.steady = analysis::SteadyState(s, in.config.stages.warmup);
    // The verdict and the row's GPU figures: the steady instances, work of every thread.
    auto diagnosis = analysis::DiagnoseTimeline(in.events, p.steady.windows, in.config.timeline);
    p.gpu_busy_ns = diagnosis.gpu_busy_ns;
    p.gpu_busy_pct = diagnosis.gpu_busy_pct;
    p.median_kernel_us = diagnosis.median_kernel_us;
    p.launches_per_s = diagnosis.launches_per_s;
    p.findings = std::move(diagnosis.findings);
    p.top_kernels = TopKernels(s, *names, in.verdicts);
    p.mfu = ReportedMfu(analysis::ComputeStageMfu(s, p.steady, *rows, work, *model, in.config.model, in.gpu, in.dtype));
    p.gpu_metrics = analysis::SampleOver(*sampled, p.steady.windows);
    out.stages.push_back(std::move(p));
  }
  AddLeftOutNotes(left_out, OpRangeOrigin(out.run.source), out.notes);
  return Status::Ok();
}

}  // namespace kscope::report::parts
