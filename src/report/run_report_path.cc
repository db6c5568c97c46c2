// The report's critical path (report/critical_path_part.h).
#include <algorithm>
#include <map>
#include <optional>
#include <utility>

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

// The edit a finding's fix implies, scoped to `stage` (empty: the whole run), and whether it
// removes the whole cost the finding names (so its saving bounds what the fix recovers).
std::optional<std::pair<std::string, bool>> EditOf(const analysis::Finding& f, const std::string& stage) {
  const std::string at = stage.empty() ? "" : "@" + stage;
  if (f.kind == "launch_bound") return stage.empty() ? std::pair("launch=0", true) : std::pair("graph" + at, false);
  if (f.kind == "gpu_idle") return std::pair("host" + at + "=0", true);
  if (f.kind == "synchronization") return std::pair("sync" + at + "=0", false);
  if (f.kind == "host_device_copies" || f.kind == "pageable_memory") return std::pair("copies" + at + "=0", true);
  return std::nullopt;
}

// Each finding's worth on the session's main steps, and the findings by it, largest first.
void PriceFindings(const g::WhatIfSession& session, const std::string& stage,
                   std::vector<analysis::Finding>& findings) {
  for (analysis::Finding& f : findings) {
    const auto edit = EditOf(f, stage);
    if (!edit) continue;
    auto parsed = g::ParseEdit(edit->first);
    if (!parsed.ok()) continue;
    auto answer = session.Answer({*parsed});
    if (!answer.ok()) continue;  // nothing it names in the run
    for (const g::StepAnswer& s : answer->steps) {
      if (s.name != answer->primary || s.replayed_ns <= 0) continue;
      f.worth = analysis::FindingWorth{.edit = edit->first,
                                       .steps = s.name,
                                       .step_ns = s.replayed_ns,
                                       .saving_ns = s.replayed_ns - s.predicted_ns,
                                       .saving_pct = 100 * (s.replayed_ns - s.predicted_ns) / s.replayed_ns,
                                       .upper_bound = edit->second};
    }
  }
  std::stable_sort(findings.begin(), findings.end(), [](const analysis::Finding& a, const analysis::Finding& b) {
    return (a.worth ? a.worth->saving_ns : -1) > (b.worth ? b.worth->saving_ns : -1);
  });
}

}  // namespace

Status AddCriticalPath(store::Store& store, const GpuInputs& in, RunReport& out) {
  if (in.rank != nullptr) return Status::Ok();
  g::WhatIfOptions options;
  options.warmup = in.config.stages.warmup;
  options.top_kernels = SIZE_MAX;
  auto session = g::WhatIfSession::Open(store, in.timeline_run, options);
  if (!session.ok()) return session.error();
  PriceFindings(*session, "", out.timeline.diagnosis.findings);
  for (StagePart& stage : out.stages) PriceFindings(*session, stage.display_name, stage.findings);
  if (out.iterations) PriceFindings(*session, "", out.iterations->findings);
  auto answer = session->Answer({});
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
  for (const g::RankOnPath& r : s->ranks) {
    CriticalPathPart::Rank row{.rank = r.rank, .parts = {}};
    for (size_t k = 0; k < g::kPathParts; ++k) {
      if (r.parts[k] > 0) row.parts.emplace_back(std::string(g::PathPartName(static_cast<g::PathPart>(k))), r.parts[k]);
    }
    p.ranks.push_back(std::move(row));
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
