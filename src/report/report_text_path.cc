#include "report/report_text_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace kscope::report {

namespace {
std::string Ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }
std::string Pct(double v) { return fmt::format("{:.1f}%", v); }
std::string Cut(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; }
}  // namespace

std::string StepName(const std::string& steps) {
  return steps == "iteration" ? "an iteration" : fmt::format("an instance of stage '{}'", steps);
}

std::string WorthText(const analysis::Finding& f) {
  if (!f.worth) return "";
  const analysis::FindingWorth& w = *f.worth;
  const std::string step = w.steps == "iteration" ? "an iteration" : fmt::format("a step of '{}'", w.steps);
  return fmt::format("{}{} ms of {} ms per {} ({:.1f}%; kscope whatif RUN {})", w.upper_bound ? "at most " : "",
                     Ms(w.saving_ns), Ms(w.step_ns), step.substr(step.find(' ') + 1), w.saving_pct, w.edit);
}

std::string OffPathText(const RunReport& r) {
  if (!r.critical_path) return "";
  std::vector<const TopKernel*> off;
  int64_t gpu_ns = 0;
  for (const TopKernel& k : r.top_kernels) {
    if (k.path_pct && *k.path_pct <= 0) {
      off.push_back(&k);
      gpu_ns += k.total_ns;
    }
  }
  if (off.empty()) return "";
  std::sort(off.begin(), off.end(), [](const TopKernel* a, const TopKernel* b) { return a->rank < b->rank; });
  std::string names;
  for (size_t i = 0; i < off.size() && i < 5; ++i) {
    names += fmt::format("{}#{} {}", i == 0 ? "" : ", ", off[i]->rank, off[i]->short_name);
  }
  if (off.size() > 5) names += fmt::format(" and {} more", off.size() - 5);
  const CriticalPathPart& p = *r.critical_path;
  const std::string until =
      p.held_by.empty()
          ? "the kernels on the path, which they run beside, are faster"
          : fmt::format("what the path runs through instead is cut ({}: {} ms per step)", p.held_by, Ms(p.held_by_ns));
  return fmt::format(
      "Off the critical path: {} ({} of the top {} kernels, {} ms of GPU time in the run): speeding them up "
      "saves nothing until {}",
      names, off.size(), r.top_kernels.size(), Ms(static_cast<double>(gpu_ns)), until);
}

std::string Worth2xText(const TopKernel& k) { return k.worth_2x ? Ms(k.worth_2x->saving_ns) : "-"; }

Table CriticalPathTable(const CriticalPathPart& p) {
  Table t;
  t.title = fmt::format(
      "Critical path of {} ({}; median {} ms over {} steps; the {} within half and twice it): what "
      "a step waits on",
      StepName(p.steps), p.marked_by, Ms(p.median_step_ns), p.steps_count, p.typical_steps);
  t.columns = {"Runs through", "Per step (ms)", "Share of the path"};
  double total = 0;
  for (const auto& [part, ns] : p.parts) total += ns;
  for (const auto& [part, ns] : p.parts) t.rows.push_back({part, Ms(ns), Pct(total > 0 ? 100 * ns / total : 0)});
  return t;
}

Table PathRanksTable(const CriticalPathPart& p) {
  Table t;
  t.title = fmt::format("The critical path of {} by rank: which rank holds a step up, and in what", StepName(p.steps));
  t.columns = {"Rank", "On the path (ms)", "Share of the path", "Mostly"};
  double total = 0;
  for (const auto& r : p.ranks) {
    for (const auto& [part, ns] : r.parts) total += ns;
  }
  for (const auto& r : p.ranks) {
    double mine = 0;
    std::pair<std::string, double> most{"-", 0};
    for (const auto& [part, ns] : r.parts) {
      mine += ns;
      if (ns > most.second) most = {part, ns};
    }
    t.rows.push_back({r.rank, Ms(mine), Pct(total > 0 ? 100 * mine / total : 0),
                      most.second > 0 ? fmt::format("{} ({} ms)", most.first, Ms(most.second)) : "-"});
  }
  return t;
}

Table PathKernelsTable(const CriticalPathPart& p, size_t name_width) {
  Table t;
  t.title = fmt::format("Kernels on the critical path of {}", StepName(p.steps));
  t.columns = {"Kernel", "Launches", "GPU time (ms)", "On the path (ms)", "On the path"};
  for (const auto& k : p.kernels) {
    t.rows.push_back({Cut(k.short_name, name_width), k.launches, Ms(k.gpu_ns), Ms(k.path_ns),
                      Pct(k.gpu_ns > 0 ? 100 * k.path_ns / k.gpu_ns : 0)});
  }
  return t;
}

}  // namespace kscope::report
