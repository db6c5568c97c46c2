// Every sampled size of the growing shapes in one ncu run (selection.growing_run=kernel-id).
// ncu's --kernel-id matches a kernel by its name and by its invocation number, the n-th launch
// of that kernel counted per kernel over the whole program, and the number may be an
// expression (ncu 2025.3.1: `::regex:^(a|b)$:^(305|911|1557)$`). The expression applies to every
// kernel the name matches, so the run profiles, of each sampled kernel, every launch whose
// number is in the set. One number per sample is chosen such that, of each sampled kernel,
// that launch is a size of its growing family (past its configuration's warm-up) as near as
// can be to the sample's place in the family: then nothing but chosen launches is profiled.
// ncu ends the workload after the last of them (--kill yes), so the run costs the workload's
// start-up and the launches up to there, not an ncu run per sample.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "capture/selection_steps.h"

namespace kscope::capture::steps {

namespace {

constexpr double kNotASize = -1;  // a launch that is not a size of the kernel's growing family

// One sampled kernel: its launches in counting order, and per launch the place of its size in
// the family (0: the smallest, 1: the largest), or kNotASize.
struct SampledKernel {
  std::vector<int64_t> rows;
  std::vector<double> place;
};

// A size's place is the middle of its share of the family's GPU time, the sizes in order: the
// samples at the middle of each third of the time fall on the sizes that hold it (a size
// launched at every step, beside the growing ones, is one of them when it holds a third).
SampledKernel PlacesOf(const RunColumns& run, const Groups& groups, const Growing& g, std::vector<int64_t> rows,
                       int64_t warmup) {
  std::vector<LaunchConfig> sizes(g.family.begin(), g.family.end());
  std::sort(sizes.begin(), sizes.end(), [&](const auto& a, const auto& b) { return a[g.dim] < b[g.dim]; });
  std::vector<double> ns(sizes.size(), 0);
  for (size_t i = 0; i < sizes.size(); ++i) {
    for (int64_t row : groups.rows.at(sizes[i])) {
      ns[i] += static_cast<double>(run.events.kernels.end[static_cast<size_t>(row)] -
                                   run.events.kernels.start[static_cast<size_t>(row)]);
    }
  }
  double total = 0;
  for (double x : ns) total += x;
  std::map<int64_t, double> place_of_row;  // launches past their configuration's warm-up
  double before = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const double place = total > 0 ? (before + ns[i] / 2) / total : 0.5;
    before += ns[i];
    const auto& crows = groups.rows.at(sizes[i]);
    for (size_t j = static_cast<size_t>(std::max<int64_t>(warmup, 0)); j < crows.size(); ++j) {
      place_of_row[crows[j]] = place;
    }
  }
  SampledKernel k{std::move(rows), {}};
  for (int64_t row : k.rows) {
    auto it = place_of_row.find(row);
    k.place.push_back(it == place_of_row.end() ? kNotASize : it->second);
  }
  return k;
}

// How well invocation `n` (from 1) samples `target` (a place in the families): the kernels it
// misses (no such launch, or not a family size past warm-up), then the distance from the target.
std::pair<int64_t, double> Fit(const std::vector<SampledKernel>& kernels, size_t n, double target) {
  int64_t missed = 0;
  double distance = 0;
  for (const auto& k : kernels) {
    if (n > k.place.size() || k.place[n - 1] == kNotASize) {
      ++missed;
      continue;
    }
    distance += std::abs(k.place[n - 1] - target);
  }
  return {missed, distance};
}

// When ncu reaches invocation `n` of every kernel: the latest of their n-th launches, as a
// position in the counting order.
size_t Lateness(const std::vector<SampledKernel>& kernels, const std::unordered_map<int64_t, size_t>& position,
                size_t n) {
  size_t latest = 0;
  for (const auto& k : kernels) {
    if (n <= k.rows.size()) latest = std::max(latest, position.at(k.rows[n - 1]));
  }
  return latest;
}

// One invocation number per sample, at the middle of each n-th of the families' time: of the
// numbers that miss fewest kernels and come within kSlack of the nearest, the one ncu reaches
// first (ncu ends the workload after the last chosen launch).
std::vector<size_t> ChooseInvocations(const std::vector<SampledKernel>& kernels,
                                      const std::unordered_map<int64_t, size_t>& position, int64_t samples) {
  constexpr double kSlack = 0.05;  // per kernel, in the family's places
  size_t most = 0;
  for (const auto& k : kernels) most = std::max(most, k.rows.size());
  std::vector<size_t> chosen;
  for (int64_t s = 0; s < samples; ++s) {
    const double target = (2.0 * static_cast<double>(s) + 1) / (2.0 * static_cast<double>(samples));
    std::vector<std::pair<int64_t, double>> fits(most + 1, {std::numeric_limits<int64_t>::max(), 0});
    std::pair<int64_t, double> nearest{std::numeric_limits<int64_t>::max(), 0};
    for (size_t n = 1; n <= most; ++n) {
      if (std::find(chosen.begin(), chosen.end(), n) != chosen.end()) continue;
      fits[n] = Fit(kernels, n, target);
      nearest = std::min(nearest, fits[n]);
    }
    if (nearest.first >= static_cast<int64_t>(kernels.size())) continue;  // no kernel has a size there
    const double slack = nearest.second + kSlack * static_cast<double>(kernels.size());
    size_t best = 0;
    for (size_t n = 1; n <= most; ++n) {
      if (fits[n].first != nearest.first || fits[n].second > slack) continue;
      if (best == 0 || Lateness(kernels, position, n) < Lateness(kernels, position, best)) best = n;
    }
    chosen.push_back(best);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace

int64_t AddInvocationRun(const RunColumns& run, const Scope& scope, const Groups& groups,
                         const std::vector<size_t>& sampled, Selection& sel) {
  std::map<int64_t, size_t> index_of;  // kernel identity -> index into `sampled`
  for (size_t j = 0; j < sampled.size(); ++j) index_of[run.Identity(sel.kernels[sampled[j]].rows.front())] = j;
  std::vector<std::vector<int64_t>> rows(sampled.size());
  for (int64_t row : scope.counted) {  // each kernel's launches as ncu numbers them
    auto it = index_of.find(run.Identity(row));
    if (it != index_of.end()) rows[it->second].push_back(row);
  }
  std::vector<SampledKernel> kernels;
  int64_t samples = 0;
  for (size_t j = 0; j < sampled.size(); ++j) {
    const Growing& g = groups.growing.at(run.Identity(sel.kernels[sampled[j]].rows.front()));
    samples = std::max(samples, static_cast<int64_t>(g.samples.size()));
    kernels.push_back(PlacesOf(run, groups, g, std::move(rows[j]), sel.warmup));
  }
  std::unordered_map<int64_t, size_t> position;
  for (size_t i = 0; i < scope.counted.size(); ++i) position[scope.counted[i]] = i;
  const std::vector<size_t> chosen = ChooseInvocations(kernels, position, samples);
  if (chosen.empty()) return 0;
  sel.growing_sizes = static_cast<int64_t>(chosen.size());
  NcuPass pass;
  pass.kernels = sampled;
  std::vector<std::string> names;
  std::string numbers;
  for (size_t i : sampled) names.push_back(sel.kernels[i].mangled);
  for (size_t n : chosen) numbers += (numbers.empty() ? "" : "|") + std::to_string(n);
  pass.filter = UnionFilter(names);
  pass.kernel_id = fmt::format("::{}:^({})$", pass.filter, numbers);
  for (size_t j = 0; j < kernels.size(); ++j) {
    for (size_t n : chosen) {
      if (n > kernels[j].rows.size()) continue;
      pass.profiled_rows.push_back(kernels[j].rows[n - 1]);
      ++sel.kernels[sampled[j]].profiled;
    }
  }
  std::sort(pass.profiled_rows.begin(), pass.profiled_rows.end(),
            [&](int64_t x, int64_t y) { return position.at(x) < position.at(y); });
  pass.skip = 0;
  pass.count = static_cast<int64_t>(pass.profiled_rows.size());
  pass.kill = true;
  const int64_t profiled = pass.count;
  sel.passes.push_back(std::move(pass));
  return profiled;
}

}  // namespace kscope::capture::steps
