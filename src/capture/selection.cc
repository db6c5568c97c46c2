#include "capture/selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "analysis/names/kernel_names.h"
#include "capture/selection_steps.h"
#include "store/column_codec.h"

namespace kscope::capture {

Result<std::pair<int64_t, int64_t>> ParseLaunchRange(const std::string& text) {
  auto number = [](std::string_view v) -> std::optional<int64_t> {
    int64_t x = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || ptr != v.data() + v.size() || x < 1) return std::nullopt;
    return x;
  };
  const auto dash = text.find('-');
  auto first = number(std::string_view(text).substr(0, dash));
  auto last = dash == std::string::npos ? first : number(std::string_view(text).substr(dash + 1));
  if (!first || !last || *last < *first) {
    return Error{"selection.launch", fmt::format("'{}' is not a launch number or range", text),
                 "write N or N-M, counted from 1 (3: the third launch; 2-4: the second to the fourth)"};
  }
  return std::make_pair(*first, *last);
}

std::string EscapeRegex(std::string_view literal) {
  std::string out;
  for (char c : literal) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string UnionFilter(const std::vector<std::string>& names) {
  std::string alt;
  for (const auto& n : names) alt += (alt.empty() ? "" : "|") + EscapeRegex(n);
  return names.size() == 1 ? "regex:^" + alt + "$" : "regex:^(" + alt + ")$";
}

std::string NcuFunctionName(std::string_view demangled) {
  const std::string base = analysis::IdentifyKernel(demangled).base;
  int depth = 0;  // the last "::" outside brackets: a lambda's scope or (anonymous namespace) holds some
  size_t last = std::string::npos;
  for (size_t i = 0; i + 1 < base.size(); ++i) {
    const char c = base[i];
    if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == '>' || c == ']' || c == '}') --depth;
    if (depth == 0 && c == ':' && base[i + 1] == ':') last = i;
  }
  return last == std::string::npos ? base : base.substr(last + 2);
}

namespace {
// Whether ncu can filter on the run's mangled names: a C++ kernel without one (a PyTorch
// profiler trace names its kernels demangled) leaves ncu only its function name.
bool HasMangledNames(const steps::RunColumns& run) {
  const auto& names = run.events.kernels.name;
  for (size_t r = 0; r < names.size(); ++r) {
    if (run.mangled[r] == store::kNull && run.strings.at(names[r]).find('(') != std::string::npos) return false;
  }
  return true;
}
}  // namespace

Result<Selection> SelectKernels(store::Store& store, int64_t run_id, const SelectionOptions& cfg,
                                int64_t passes_per_launch, int64_t warmup_instances, int64_t ncu_rank) {
  auto run = steps::LoadRun(store, run_id);
  if (!run.ok()) return run.error();
  Selection sel;
  sel.name_base = HasMangledNames(*run) ? "mangled" : "function";
  sel.stage = cfg.stage;
  sel.target = cfg.kernel;
  sel.passes_per_launch = passes_per_launch;
  sel.budget_s = cfg.budget_s;
  sel.pass_s = cfg.pass_s;
  // The workload runs whole under ncu: its own time is the discovery run's span of CUDA calls.
  if (const auto& api = run->events.api.start; !api.empty()) {
    const auto [lo, hi] = std::minmax_element(api.begin(), api.end());
    sel.app_s = static_cast<double>(*hi - *lo) * 1e-9;
  }
  auto scope = steps::ScopeLaunches(store, run_id, *run, cfg, warmup_instances, ncu_rank, sel);
  if (!scope.ok()) return scope.error();
  // What each ncu run repeats: the whole workload, every launch of it intercepted by ncu.
  sel.workload_s = cfg.workload_s > 0 ? cfg.workload_s : sel.app_s;
  sel.workload_launches = static_cast<int64_t>(run->events.kernels.start.size()) / std::max<int64_t>(sel.ranks, 1);
  sel.launch_s = cfg.launch_us * 1e-6;
  auto ranked = steps::RankKernels(*run, *scope, cfg, sel);
  if (!ranked.ok()) return ranked.error();
  const steps::Groups groups = steps::GroupConfigs(*run, *scope, cfg, sel, *ranked);
  const steps::Cover cover = steps::CoverKernels(*ranked, *run, groups, cfg, sel.scope_ns);
  steps::ApplyBudget(*ranked, cover, groups, *run, cfg, sel);
  KSCOPE_RETURN_IF_ERROR(steps::SplitPasses(*run, *scope, groups, cfg, sel));
  return sel;
}

}  // namespace kscope::capture
