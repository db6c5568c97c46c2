// The report's critical path (report/critical_path_part.h).
#include <algorithm>
#include <map>

#include "analysis/graph/whatif.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

namespace g = analysis::graph;

namespace {

// The step set a user means by "a step": the outermost repeating stage (its steps run from one
// start to the next), else the iterations, else the first there is.
const g::StepAnswer* Primary(const std::vector<g::StepAnswer>& steps) {
  for (const auto& s : steps) {
    if (s.source == g::StepSource::kStage && s.how.find("next start") != std::string::npos) return &s;
  }
  for (const auto& s : steps) {
    if (s.source == g::StepSource::kIterations) return &s;
  }
  return steps.empty() ? nullptr : &steps.front();
}

}  // namespace

Status AddCriticalPath(store::Store& store, const GpuInputs& in, RunReport& out) {
  if (in.rank != nullptr) return Status::Ok();
  g::WhatIfOptions options;
  options.warmup = in.config.stages.warmup;
  options.top_kernels = SIZE_MAX;
  auto answer = g::AnswerWhatIf(store, in.timeline_run, {}, options);
  if (!answer.ok()) return answer.error();
  const g::StepAnswer* s = Primary(answer->steps);
  if (s == nullptr || s->typical_steps == 0) return Status::Ok();
  CriticalPathPart p;
  p.steps = s->name;
  p.marked_by = s->how;
  p.steps_count = s->steps;
  p.typical_steps = s->typical_steps;
  p.median_step_ns = s->recorded_ns;
  p.typical_step_ns = s->typical_recorded_ns;
  for (size_t k = 0; k < g::kPathParts; ++k) {
    if (s->before[k] > 0) p.parts.emplace_back(std::string(g::PathPartName(static_cast<g::PathPart>(k))), s->before[k]);
  }
  const double n = static_cast<double>(std::max<int64_t>(s->typical_steps, 1));
  std::map<std::string, const g::KernelOnPath*> by_name;
  for (const auto& k : s->kernels) {
    by_name[k.name] = &k;
    if (p.kernels.size() < 10 && k.path_ns > 0) {
      p.kernels.push_back({.name = k.name,
                           .launches = static_cast<int64_t>(static_cast<double>(k.launches) / n + 0.5),
                           .gpu_ns = k.gpu_ns,
                           .path_ns = k.path_ns});
    }
  }
  for (TopKernel& k : out.top_kernels) {
    const auto it = by_name.find(k.name);
    if (it != by_name.end() && it->second->gpu_ns > 0) k.path_pct = 100 * it->second->path_ns / it->second->gpu_ns;
  }
  auto on_path = [](const TopKernel& k) { return static_cast<double>(k.total_ns) * k.path_pct.value_or(0) / 100; };
  std::stable_sort(out.top_kernels.begin(), out.top_kernels.end(),
                   [&](const TopKernel& a, const TopKernel& b) { return on_path(a) > on_path(b); });
  out.critical_path = std::move(p);
  return Status::Ok();
}

}  // namespace kscope::report::parts
