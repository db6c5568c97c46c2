// Growing shapes: a decoder's cache grows by one position per step, so the kernels that read
// it see a new grid (or block, or shared memory) at every step, and ncu's per-configuration
// filter would profile each of them, hundreds of launches of one kernel that differ only in
// size. Such a kernel gets a few representative sizes profiled instead. ncu cannot pick chosen
// configurations out of a per-configuration filter; by default one ncu run picks every sample
// by its invocation number (selection_growing_run.cc). Otherwise (selection.growing_run=windows,
// or an NVTX-gated selection) each sample is a window of its own ncu run: the global count over
// the sampled kernels skips to the sample's launch and profiles until every sampled kernel was
// seen once; the kernels that grow together (a step's attention) are measured at the same step.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <tuple>

#include "capture/selection_steps.h"

namespace kscope::capture::steps {

namespace {

constexpr int64_t kMaxWindow = 64;  // launches one window may profile

// The largest set of `configs` equal in every dimension but one, and that dimension.
Growing LargestFamily(const std::vector<LaunchConfig>& configs) {
  Growing best;
  for (size_t d = 1; d < std::tuple_size_v<LaunchConfig>; ++d) {
    std::map<LaunchConfig, std::set<LaunchConfig>> by_rest;
    for (const auto& c : configs) {
      LaunchConfig rest = c;
      rest[d] = 0;
      by_rest[rest].insert(c);
    }
    for (auto& [rest, family] : by_rest) {
      if (family.size() > best.family.size()) {
        best.dim = d;
        best.family = std::move(family);
      }
    }
  }
  return best;
}

// `n` sizes spread over the family (at the middle of each n-th of it), among the
// configurations launched often enough to pass the warm-up.
std::vector<LaunchConfig> Samples(const Growing& g, const Groups& groups, int64_t warmup, int64_t n) {
  std::vector<LaunchConfig> eligible;
  for (const auto& c : g.family) {
    if (static_cast<int64_t>(groups.rows.at(c).size()) > warmup) eligible.push_back(c);
  }
  std::sort(eligible.begin(), eligible.end(), [&](const auto& a, const auto& b) { return a[g.dim] < b[g.dim]; });
  std::vector<LaunchConfig> out;
  const auto size = static_cast<int64_t>(eligible.size());
  for (int64_t i = 0; i < n && i < size; ++i) {
    const int64_t at = std::min(size - 1, (2 * i + 1) * size / (2 * std::min(n, size)));
    if (out.empty() || out.back() != eligible[static_cast<size_t>(at)])
      out.push_back(eligible[static_cast<size_t>(at)]);
  }
  return out;
}

// The launches of the selected sampled kernels, in ncu's counting order.
std::vector<int64_t> SampledLaunches(const RunColumns& run, const Scope& scope, const std::set<int64_t>& ids) {
  std::vector<int64_t> out;
  for (int64_t row : scope.counted) {
    if (ids.count(run.Identity(row)) != 0) out.push_back(row);
  }
  return out;
}

// Per selected sampled kernel: the time of its family, and of the family's configurations a
// window measures; the selection's deep and represented shares follow.
void AccountSampling(const RunColumns& run, const Groups& groups, Selection& sel) {
  std::set<LaunchConfig> measured;
  for (const auto& p : sel.passes) {
    if (p.skip < 0) continue;
    for (int64_t row : p.profiled_rows) measured.insert(ConfigOfRow(run, row));
  }
  int64_t deep_ns = 0, represented_ns = 0;
  for (auto& sk : sel.kernels) {
    if (sk.sampled) {
      const Growing& g = groups.growing.at(run.Identity(sk.rows.front()));
      sk.measured_ns = 0;
      for (int64_t row : sk.rows) {
        const LaunchConfig c = ConfigOfRow(run, row);
        if (g.family.count(c) != 0 && measured.count(c) != 0) {
          sk.measured_ns +=
              run.events.kernels.end[static_cast<size_t>(row)] - run.events.kernels.start[static_cast<size_t>(row)];
        }
      }
      if (sk.measured_ns == 0) sk.covered_ns = 0;  // no size of it measured: nothing represented
      represented_ns += sk.covered_ns - sk.measured_ns;
    }
    deep_ns += sk.covered_ns;
  }
  const auto pct = [&](int64_t ns) {
    return sel.scope_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(sel.scope_ns) : 0.0;
  };
  sel.deep_pct = pct(deep_ns);
  sel.represented_pct = pct(represented_ns);
}

}  // namespace

LaunchConfig ConfigOfRow(const RunColumns& run, int64_t row) {
  LaunchConfig c{run.Identity(row)};
  for (size_t d = 0; d < run.dims.size(); ++d) c[d + 1] = run.dims[d][static_cast<size_t>(row)];
  return c;
}

bool OneSampledRun(const SelectionOptions& cfg, const Selection& sel) {
  return cfg.growing_run == "kernel-id" && sel.nvtx_include.empty() && sel.nvtx_exclude.empty();
}

std::string DimensionName(size_t dim) {
  static const char* kNames[] = {"kernel",  "grid x",  "grid y",  "grid z",
                                 "block x", "block y", "block z", "dynamic shared memory"};
  return dim < std::size(kNames) ? kNames[dim] : "?";
}

void FindGrowingShapes(const SelectionOptions& cfg, const Selection& sel, Groups& groups) {
  if (cfg.growing_samples <= 0 || cfg.growing_configs <= 1) return;
  std::map<int64_t, std::vector<LaunchConfig>> by_kernel;
  for (const auto& [c, rows] : groups.rows) by_kernel[c[0]].push_back(c);
  struct Candidate {
    int64_t id;
    Growing g;
    double every_s, samples_s;  // every size's picks; the samples' own
  };
  const double per_launch = static_cast<double>(sel.passes_per_launch) * sel.pass_s;
  std::vector<Candidate> candidates;
  for (const auto& [id, configs] : by_kernel) {
    if (static_cast<int64_t>(configs.size()) < cfg.growing_configs) continue;
    Growing g = LargestFamily(configs);
    if (static_cast<int64_t>(g.family.size()) < cfg.growing_configs) continue;
    g.samples = Samples(g, groups, sel.warmup, cfg.growing_samples);
    if (g.samples.empty()) continue;
    int64_t every = 0;
    for (const auto& c : g.family) {
      every += std::clamp<int64_t>(static_cast<int64_t>(groups.rows.at(c).size()) - sel.warmup, 0, sel.launches);
    }
    const double samples_s = static_cast<double>(g.samples.size()) * per_launch;
    candidates.push_back({id, std::move(g), static_cast<double>(every) * per_launch, samples_s});
  }
  // Sampled only where it is cheaper than every size: with one run for every sample, that run
  // is paid once, by a kernel whose sizes cost more than it; the others then pay their samples'
  // passes alone. With a run per sample, each kernel pays its runs.
  const double one_run = sel.workload_s + static_cast<double>(sel.workload_launches) * sel.launch_s;
  const bool shared = OneSampledRun(cfg, sel);
  const bool run_paid = shared && std::any_of(candidates.begin(), candidates.end(),
                                              [&](const Candidate& c) { return c.every_s > one_run + c.samples_s; });
  for (auto& c : candidates) {
    const double runs_s = shared ? (run_paid ? 0.0 : one_run) : static_cast<double>(c.g.samples.size()) * one_run;
    if (c.every_s <= c.samples_s + runs_s) continue;
    groups.picks[c.id] = static_cast<int64_t>(c.g.samples.size());
    groups.growing.emplace(c.id, std::move(c.g));
  }
}

int64_t AddGrowingWindows(const RunColumns& run, const Scope& scope, const Groups& groups, const SelectionOptions& cfg,
                          Selection& sel) {
  std::vector<size_t> sampled;
  std::set<int64_t> ids;
  for (size_t i = 0; i < sel.kernels.size(); ++i) {
    if (!sel.kernels[i].sampled) continue;
    sampled.push_back(i);
    ids.insert(run.Identity(sel.kernels[i].rows.front()));
  }
  if (sampled.empty()) return 0;
  sel.growing_kernels = static_cast<int64_t>(sampled.size());
  for (size_t i : sampled) sel.growing_configs += sel.kernels[i].family_configs;
  // ncu's kernel identifier separates its fields with ':', which no mangled name holds.
  const bool plain_names = std::none_of(
      sampled.begin(), sampled.end(), [&](size_t i) { return sel.kernels[i].mangled.find(':') != std::string::npos; });
  if (OneSampledRun(cfg, sel) && plain_names) {
    const int64_t profiled = AddInvocationRun(run, scope, groups, sampled, sel);
    AccountSampling(run, groups, sel);
    sel.notes.push_back(fmt::format(
        "{} kernel{} grow{} step by step ({} launch configurations that differ in one dimension): {} launches of "
        "{} at {} sampled sizes profiled in one ncu run, which picks them by invocation number and ends the "
        "workload after the last; {:.1f}% of the kernel time is counted as covered by those samples without being "
        "measured (selection.growing_samples, selection.growing_configs, selection.growing_run)",
        sampled.size(), sampled.size() == 1 ? "" : "s", sampled.size() == 1 ? "s" : "", sel.growing_configs, profiled,
        sampled.size() == 1 ? "it" : "them", cfg.growing_samples, sel.represented_pct));
    return profiled;
  }
  const std::vector<int64_t> launches = SampledLaunches(run, scope, ids);
  std::unordered_map<int64_t, size_t> position;
  for (size_t i = 0; i < launches.size(); ++i) position[launches[i]] = i;
  std::vector<std::string> names;
  for (size_t i : sampled) names.push_back(sel.kernels[i].mangled);
  // The windows follow the largest sampled kernel's sizes.
  const Growing& lead = groups.growing.at(run.Identity(sel.kernels[sampled.front()].rows.front()));
  int64_t profiled = 0;
  for (const auto& sample : lead.samples) {
    const auto& rows = groups.rows.at(sample);
    const size_t start =
        position.at(rows[static_cast<size_t>(std::min<int64_t>(sel.warmup, static_cast<int64_t>(rows.size()) - 1))]);
    NcuPass pass;
    pass.kernels = sampled;
    pass.filter = UnionFilter(names);
    std::set<int64_t> seen;
    for (size_t at = start; at < launches.size() && static_cast<int64_t>(pass.profiled_rows.size()) < kMaxWindow;
         ++at) {
      pass.profiled_rows.push_back(launches[at]);
      seen.insert(run.Identity(launches[at]));
      if (seen.size() == ids.size()) break;
    }
    pass.skip = static_cast<int64_t>(start);
    pass.count = static_cast<int64_t>(pass.profiled_rows.size());
    profiled += pass.count;
    for (int64_t row : pass.profiled_rows) {
      for (size_t i : sampled) {
        if (run.Identity(row) == run.Identity(sel.kernels[i].rows.front())) ++sel.kernels[i].profiled;
      }
    }
    sel.passes.push_back(std::move(pass));
  }
  AccountSampling(run, groups, sel);
  sel.growing_sizes = static_cast<int64_t>(lead.samples.size());
  sel.notes.push_back(fmt::format(
      "{} kernel{} grow{} step by step ({} launch configurations that differ in one dimension): {} size{} of {} "
      "profiled, each in an ncu run of its own; {:.1f}% of the kernel time is counted as covered by those samples "
      "without being measured (selection.growing_samples, selection.growing_configs)",
      sampled.size(), sampled.size() == 1 ? "" : "s", sampled.size() == 1 ? "s" : "", sel.growing_configs,
      lead.samples.size(), lead.samples.size() == 1 ? "" : "s", sampled.size() == 1 ? "it" : "them",
      sel.represented_pct));
  return profiled;
}

}  // namespace kscope::capture::steps
