// The figures a bottleneck verdict rests on, from whichever of ncu's metrics were collected.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "analysis/kernels/bottleneck.h"

namespace kscope::analysis {

namespace {

// The first of `metrics` the launch has, with its name.
std::pair<std::optional<double>, std::string> First(const NcuLaunch& l,
                                                    std::initializer_list<std::string_view> metrics) {
  for (const std::string_view m : metrics) {
    if (auto v = l.Number(std::string(m))) return {v, std::string(m)};
  }
  return {std::nullopt, ""};
}

// The limiter of theoretical occupancy: the resource allowing the fewest blocks per SM.
std::string OccupancyLimiter(const NcuLaunch& l) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kLimits{
      {{"launch__occupancy_limit_registers", "registers"},
       {"launch__occupancy_limit_shared_mem", "shared memory"},
       {"launch__occupancy_limit_warps", "warps"},
       {"launch__occupancy_limit_blocks", "blocks per SM"},
       {"launch__occupancy_limit_barriers", "barriers"}}};
  std::string limiter;
  double fewest = 0;
  for (const auto& [metric, name] : kLimits) {
    auto v = l.Number(std::string(metric));
    if (v && (limiter.empty() || *v < fewest)) {
      fewest = *v;
      limiter = name;
    }
  }
  return limiter;
}

// Stall reasons in one form: (reason, value) for every metric named prefix<reason>suffix.
std::vector<Stall> StallsOf(const NcuLaunch& l, std::string_view prefix, std::string_view suffix) {
  std::vector<Stall> out;
  for (const auto& [metric, value] : l.metrics) {
    if (!value.number || !metric.starts_with(prefix) || !metric.ends_with(suffix)) continue;
    std::string reason = metric.substr(prefix.size(), metric.size() - prefix.size() - suffix.size());
    if (reason.ends_with("_not_issued") || reason == "selected") continue;  // not a stall / a breakdown of one
    out.push_back({std::move(reason), *value.number, 0});
  }
  return out;
}

void AddStalls(const NcuLaunch& l, Evidence& e) {
  auto stalls = StallsOf(l, "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio");
  e.stall_form = StallForm::kPerIssue;
  if (stalls.empty()) {
    stalls = StallsOf(l, "smsp__warp_issue_stalled_", "_per_warp_active.pct");
    e.stall_form = StallForm::kPctOfActiveWarps;
  }
  if (stalls.empty()) return;
  double total = 0;
  for (const Stall& s : stalls) total += s.value;
  e.stall_total = total;
  e.stall_reasons = static_cast<int>(stalls.size());
  std::sort(stalls.begin(), stalls.end(), [](const Stall& a, const Stall& b) {
    return a.value != b.value ? a.value > b.value : a.reason < b.reason;
  });
  for (Stall& s : stalls) s.share = total > 0 ? 100.0 * s.value / total : 0;
  e.top_stalls.assign(stalls.begin(), stalls.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(3, stalls.size())));
  e.stalls = std::move(stalls);
}

}  // namespace

std::string StallValueText(StallForm form, double value) {
  return form == StallForm::kPerIssue ? fmt::format("{:.2f} cycles/issue", value)
                                      : fmt::format("{:.1f}% of active warps", value);
}

Evidence GatherEvidence(const NcuLaunch& l) {
  Evidence e;
  e.duration_ns = l.Number("gpu__time_duration.sum");
  e.sm_pct = l.Number("sm__throughput.avg.pct_of_peak_sustained_elapsed");
  std::tie(e.dram_pct, e.dram_metric) = First(l, {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                                                  "dram__throughput.avg.pct_of_peak_sustained_elapsed"});
  e.l1_pct = l.Number("l1tex__throughput.avg.pct_of_peak_sustained_active");
  e.l2_pct = l.Number("lts__throughput.avg.pct_of_peak_sustained_elapsed");
  // The memory figure: SpeedOfLight's (the busiest memory unit), else the busiest of the
  // memory units measured one by one.
  constexpr std::string_view kMemory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
  e.memory_pct = l.Number(std::string(kMemory));
  if (e.memory_pct) {
    e.memory_metric = kMemory;
  } else {
    const std::array<std::pair<std::optional<double>, std::string>, 3> units{
        {{e.dram_pct, e.dram_metric},
         {e.l1_pct, "l1tex__throughput.avg.pct_of_peak_sustained_active"},
         {e.l2_pct, "lts__throughput.avg.pct_of_peak_sustained_elapsed"}}};
    for (const auto& [v, metric] : units) {
      if (v && (!e.memory_pct || *v > *e.memory_pct)) {
        e.memory_pct = v;
        e.memory_metric = metric;
      }
    }
  }
  e.l1_hit_pct = l.Number("l1tex__t_sector_hit_rate.pct");
  e.l2_hit_pct = l.Number("lts__t_sector_hit_rate.pct");
  e.achieved_occupancy_pct = l.Number("sm__warps_active.avg.pct_of_peak_sustained_active");
  e.theoretical_occupancy_pct = l.Number("sm__maximum_warps_per_active_cycle_pct");
  e.waves = l.Number("launch__waves_per_multiprocessor");
  e.grid_blocks = l.Number("launch__grid_size");
  e.sm_count = l.Number("launch__sm_count");
  e.occupancy_limiter = OccupancyLimiter(l);
  AddStalls(l, e);
  return e;
}

}  // namespace kscope::analysis
