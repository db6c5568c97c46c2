#include "report/all_kernels.h"

#include <fmt/format.h>

#include "analysis/kernels/ncu_launches.h"
#include "analysis/names/kernel_names.h"
#include "analysis/names/short_names.h"
#include "analysis/timeline/kernel_totals.h"
#include "report/nsys_numbers.h"
#include "report/run_report.h"
#include "report/run_report_parts.h"

namespace kscope::report {

Result<Table> AllKernelsTable(store::Store& store, int64_t run_id, const analysis::ClassifyThresholds& thresholds,
                              std::optional<int64_t> rank, KernelNames names) {
  auto timeline = TimelineRun(store, run_id);
  if (!timeline.ok()) return timeline.error();
  auto launches = analysis::LoadNcuLaunches(store, run_id);
  if (!launches.ok()) return launches.error();
  const auto verdicts = parts::Verdicts(*launches, thresholds);
  std::optional<analysis::RankSelection> selection;
  if (rank) {
    auto loaded = analysis::LoadRank(store, *timeline, *rank);
    if (!loaded.ok()) return loaded.error();
    selection = std::move(loaded).value();
  }
  auto totals = analysis::KernelTotals(store, *timeline, selection ? &*selection : nullptr);
  if (!totals.ok()) return totals.error();
  const std::vector<analysis::KernelTotal>& rows = *totals;
  int64_t all_ns = 0;
  for (const auto& r : rows) all_ns += r.total;
  Table t;
  t.title = fmt::format("Every kernel of run {}{} by GPU time (nsys), with ncu's figures where profiled", run_id,
                        rank ? fmt::format(", rank {},", *rank) : "");
  t.columns = {"#",     "Time %", "Time (ns)", "Launches", "Avg (ns)", "Kernel",      "Family",   "Library",
               "Class", "SM %",   "DRAM %",    "L1 Hit %", "L2 Hit %", "Occupancy %", "Top stall"};
  if (names == KernelNames::kShortAndFull) t.columns.emplace_back("Name");
  std::vector<std::string> full;
  full.reserve(rows.size());
  for (const auto& r : rows) full.push_back(r.name);
  const std::vector<std::string> short_names = analysis::ShortKernelNames(full);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto id = analysis::IdentifyKernel(r.name);
    auto v = verdicts.find(analysis::KernelMatchKey(r.name));
    const bool profiled = v != verdicts.end();
    // One of ncu's figures, rounded to one decimal, or empty where the kernel was not profiled.
    auto figure = [&](std::optional<double> KernelVerdict::*field) {
      return profiled && v->second.*field ? Cell(Round1(*(v->second.*field))) : Cell();
    };
    const double share = all_ns > 0 ? 100.0 * static_cast<double>(r.total) / static_cast<double>(all_ns) : 0.0;
    std::vector<Cell> row{static_cast<int64_t>(i + 1),
                          Round1(share),
                          r.total,
                          r.n,
                          Round1(r.mean),
                          short_names[i],
                          id.family,
                          std::string(analysis::LibraryName(id.library)),
                          profiled ? Cell(v->second.bottleneck) : Cell(std::string("not profiled")),
                          figure(&KernelVerdict::sm_pct),
                          figure(&KernelVerdict::dram_pct),
                          figure(&KernelVerdict::l1_hit_pct),
                          figure(&KernelVerdict::l2_hit_pct),
                          figure(&KernelVerdict::achieved_occupancy_pct),
                          profiled && !v->second.top_stall.empty() ? Cell(v->second.top_stall) : Cell()};
    if (names == KernelNames::kShortAndFull) row.emplace_back(r.name);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace kscope::report
