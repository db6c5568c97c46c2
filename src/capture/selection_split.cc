// SelectKernels' last step: each selected kernel's picks, split into ncu runs.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "capture/selection_steps.h"

namespace kscope::capture::steps {

namespace {

// Per selected kernel: the launches ncu profiles, [warmup, warmup+launches) of each of its
// configurations; counts the configurations.
std::vector<std::vector<int64_t>> Picks(const RunColumns& run, const Groups& groups, Selection& sel) {
  std::vector<std::vector<int64_t>> picks(sel.kernels.size());
  std::unordered_map<int64_t, size_t> selected;  // identity -> kernel index
  for (size_t i = 0; i < sel.kernels.size(); ++i) selected[run.Identity(sel.kernels[i].rows.front())] = i;
  for (const auto& [c, crows] : groups.rows) {
    auto it = selected.find(c[0]);
    if (it == selected.end()) continue;
    ++sel.kernels[it->second].configs;
    if (sel.kernels[it->second].sampled) continue;  // its sizes are sampled by windows of their own
    const auto n = static_cast<int64_t>(crows.size());
    const auto begin = static_cast<std::ptrdiff_t>(std::min<int64_t>(sel.warmup, n));
    const auto end = static_cast<std::ptrdiff_t>(std::min<int64_t>(sel.warmup + sel.launches, n));
    picks[it->second].insert(picks[it->second].end(), crows.begin() + begin, crows.begin() + end);
  }
  return picks;
}

// The pass's launches in launch order (`position`: each counted row's), each with its kernel.
void SortByLaunchOrder(const std::unordered_map<int64_t, size_t>& position, NcuPass& pass) {
  std::vector<size_t> order(pass.profiled_rows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return position.at(pass.profiled_rows[x]) < position.at(pass.profiled_rows[y]);
  });
  NcuPass sorted;
  for (size_t i : order) {
    sorted.profiled_rows.push_back(pass.profiled_rows[i]);
    sorted.row_kernels.push_back(pass.row_kernels[i]);
  }
  pass.profiled_rows = std::move(sorted.profiled_rows);
  pass.row_kernels = std::move(sorted.row_kernels);
}

// One ncu run's estimated time: the workload's start-up (its wall time outside its CUDA calls),
// its CUDA calls up to the run's end (the last profiled launch, where ncu ends the workload),
// ncu's cost on each launch until then, and the replay passes of the profiled ones.
double RunEstimate(const RunColumns& run, const Scope& scope, const Selection& sel, const NcuPass& pass,
                   double pass_s) {
  double span_s = sel.app_s;
  double launches = static_cast<double>(sel.workload_launches);
  const auto& api = run.events.api.start;
  if (pass.kill && !pass.profiled_rows.empty() && !api.empty() && !scope.order_time.empty()) {
    const int64_t first = *std::min_element(api.begin(), api.end());
    const int64_t last = scope.order_time[static_cast<size_t>(pass.profiled_rows.back())];
    span_s = std::clamp(static_cast<double>(last - first) * 1e-9, 0.0, sel.app_s);
    const auto before =
        std::count_if(scope.order_time.begin(), scope.order_time.end(), [&](int64_t t) { return t <= last; });
    launches *= static_cast<double>(before) / static_cast<double>(scope.order_time.size());
  }
  const auto profiled = static_cast<double>(pass.profiled_rows.size());
  return std::max(0.0, sel.workload_s - sel.app_s) + span_s + launches * sel.launch_s +
         profiled * static_cast<double>(sel.passes_per_launch) * pass_s;
}

}  // namespace

Status SplitPasses(const RunColumns& run, const Scope& scope, const Groups& groups, const SelectionOptions& cfg,
                   Selection& sel) {
  const std::vector<std::vector<int64_t>> picks = Picks(run, groups, sel);
  const bool per_kernel = cfg.launch_scope == "kernel";
  // Kernels in order of importance share one ncu run while its launches stay within
  // max_pass_launches; the launches of a run are profiled in launch order.
  std::unordered_map<int64_t, size_t> position;
  for (size_t i = 0; i < scope.counted.size(); ++i) position[scope.counted[i]] = i;
  NcuPass pass;
  auto close_pass = [&]() {
    if (pass.kernels.empty()) return;
    std::vector<std::string> names;
    for (size_t i : pass.kernels) names.push_back(sel.kernels[i].mangled);
    pass.filter = UnionFilter(names);
    SortByLaunchOrder(position, pass);
    sel.passes.push_back(std::move(pass));
    pass = {};
  };
  for (size_t i = 0; i < sel.kernels.size(); ++i) {
    sel.kernels[i].profiled = static_cast<int64_t>(picks[i].size());
    if (picks[i].empty()) continue;  // every configuration too rare to pass its warm-up, or sampled
    // ncu's global count runs over every kernel its filter matches: one kernel per ncu run.
    if (!pass.kernels.empty() &&
        (per_kernel || static_cast<int64_t>(pass.profiled_rows.size() + picks[i].size()) > cfg.max_pass_launches)) {
      close_pass();
    }
    pass.kernels.push_back(i);
    pass.profiled_rows.insert(pass.profiled_rows.end(), picks[i].begin(), picks[i].end());
    pass.row_kernels.insert(pass.row_kernels.end(), picks[i].size(), i);
  }
  close_pass();
  AddGrowingWindows(run, scope, groups, cfg, sel);
  sel.estimated_s = 0;
  for (auto& p : sel.passes) {
    p.estimated_s = RunEstimate(run, scope, sel, p, cfg.pass_s);
    sel.estimated_s += p.estimated_s;
  }
  if (sel.passes.empty()) {
    return Error{"selection",
                 fmt::format("no {} of the selected kernels is launched more than {} times{}, so ncu would profile "
                             "nothing",
                             per_kernel ? "kernel" : "launch configuration", sel.warmup,
                             cfg.stage.empty() ? "" : " inside '" + cfg.stage + "'"),
                 cfg.launch.empty() ? "lower selection.warmup" : "choose an earlier selection.launch"};
  }
  return Status::Ok();
}

}  // namespace kscope::capture::steps
