// Performance per family (or kernel): the figures `kscope kernels` shows for a profiled launch
// (analysis::Diagnose's evidence, stored per launch at import), over every profiled launch
// of the selected runs.
#include <algorithm>
#include <array>
#include <set>

#include "analysis/atlas/parts.h"

namespace kscope::analysis::atlas {

namespace {

constexpr size_t kBottlenecks = static_cast<size_t>(Bottleneck::kUnknown) + 1;

void Push(std::vector<double>& to, const std::optional<double>& v) {
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

struct PerformanceTally::Samples {
  PerformanceRow row;
  RunsAndModels runs;
  std::array<int64_t, kBottlenecks> classes{};  // launches by Bottleneck
  std::vector<double> sm, dram, l1_hit, l2_hit, occupancy, theoretical;
};

void PerformanceTally::Add(const ProfiledLaunch& l) {
  Samples* found = by_name_.Find(l.name_index);
  if (found == nullptr) {
    auto& ptr = samples_[l.key];
    if (!ptr) {
      ptr = std::make_shared<Samples>();
      ptr->row.key = l.key;
      ptr->row.family = l.identity.family;
      ptr->row.library = std::string(LibraryName(l.identity.library));
    }
    found = ptr.get();
    by_name_.Set(l.name_index, found);
  }
  auto& s = *found;
  s.runs.Add(l);
  ++s.row.launches;
  ++s.classes[static_cast<size_t>(l.bottleneck)];
  const auto& f = l.launch.figures;
  Push(s.sm, f.class_figures.sm_pct);
  Push(s.dram, f.class_figures.dram_pct);
  Push(s.l1_hit, f.l1_hit_pct);
  Push(s.l2_hit, f.class_figures.l2_hit_pct);
  Push(s.occupancy, f.achieved_occupancy_pct);
  Push(s.theoretical, f.theoretical_occupancy_pct);
  if (!f.top_stall.empty()) ++s.row.top_stalls[f.top_stall];
}

void PerformanceTally::Finish(Atlas& atlas) {
  for (auto& [key, ptr] : samples_) {
    auto& s = *ptr;
    s.row.runs = s.runs.runs;
    s.row.models = static_cast<int64_t>(s.runs.models.size());
    for (size_t b = 0; b < kBottlenecks; ++b) {
      if (s.classes[b] > 0) s.row.classes[std::string(BottleneckName(static_cast<Bottleneck>(b)))] = s.classes[b];
    }
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
}

}  // namespace kscope::analysis::atlas
