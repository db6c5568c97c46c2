// Performance per family (or kernel): the figures `kscope kernels` shows for a profiled launch
// (analysis::Diagnose's evidence), gathered over every profiled launch of the selected runs.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "analysis/atlas/parts.h"
#include "analysis/kernels/ncu_launches.h"
#include "analysis/names/kernel_names.h"

namespace kscope::analysis::atlas {

namespace {

struct Samples {
  PerformanceRow row;
  std::set<int64_t> runs;
  std::set<std::string> models;
  std::vector<double> sm, dram, l1_hit, l2_hit, occupancy, theoretical;
};

void Add(std::vector<double>& to, const std::optional<double>& v) {
  if (v) to.push_back(*v);
}

}  // namespace

Spread SpreadOf(std::vector<double> values) {
  Spread s;
  s.launches = static_cast<int64_t>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
  };
  s.min = values.front();
  s.p25 = at(0.25);
  s.median = at(0.5);
  s.p75 = at(0.75);
  s.max = values.back();
  return s;
}

Status AddPerformance(store::Store& store, const ClassifyThresholds& thresholds, const NsysNames& nsys_names,
                      Atlas& atlas) {
  std::unordered_map<std::string, KernelIdentity> names;
  std::map<std::string, Samples> samples;
  for (auto& run : atlas.runs) {
    auto launches = LoadNcuLaunches(store, run.id);
    if (!launches.ok()) return launches.error();
    run.profiled_launches = static_cast<int64_t>(launches->size());
    for (const auto& l : *launches) {
      auto it = names.find(l.key.name);
      if (it == names.end()) it = names.emplace(l.key.name, IdentifyKernel(l.key.name)).first;
      const auto& id = it->second;
      std::string key = id.family;
      if (atlas.grouping == Grouping::kKernel) {
        auto nsys = nsys_names.find(KernelMatchKey(l.key.name));
        key = nsys != nsys_names.end() ? nsys->second : l.key.name;
      }
      auto& s = samples[key];
      if (s.runs.empty()) {
        s.row.key = key;
        s.row.family = id.family;
        s.row.library = std::string(LibraryName(id.library));
      }
      s.runs.insert(run.id);
      s.models.insert(run.model);
      ++s.row.launches;
      const auto d = Diagnose(l, thresholds);
      ++s.row.classes[std::string(BottleneckName(d.bottleneck))];
      const auto& e = d.evidence;
      Add(s.sm, e.sm_pct);
      Add(s.dram, e.dram_pct);
      Add(s.l1_hit, e.l1_hit_pct);
      Add(s.l2_hit, e.l2_hit_pct);
      Add(s.occupancy, e.achieved_occupancy_pct);
      Add(s.theoretical, e.theoretical_occupancy_pct);
      if (!e.top_stalls.empty()) ++s.row.top_stalls[e.top_stalls.front().reason];
    }
  }
  for (auto& [key, s] : samples) {
    s.row.runs = static_cast<int64_t>(s.runs.size());
    s.row.models = static_cast<int64_t>(s.models.size());
    s.row.sm_pct = SpreadOf(std::move(s.sm));
    s.row.dram_pct = SpreadOf(std::move(s.dram));
    s.row.l1_hit_pct = SpreadOf(std::move(s.l1_hit));
    s.row.l2_hit_pct = SpreadOf(std::move(s.l2_hit));
    s.row.achieved_occupancy_pct = SpreadOf(std::move(s.occupancy));
    s.row.theoretical_occupancy_pct = SpreadOf(std::move(s.theoretical));
    atlas.performance.push_back(std::move(s.row));
  }
  std::stable_sort(atlas.performance.begin(), atlas.performance.end(),
                   [](const PerformanceRow& a, const PerformanceRow& b) { return a.launches > b.launches; });
  return Status::Ok();
}

}  // namespace kscope::analysis::atlas
