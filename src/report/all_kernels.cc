#include "report/all_kernels.h"

#include <fmt/format.h>

#include "analysis/kernels/ncu_launches.h"
#include "analysis/names/kernel_names.h"
#include "report/nsys_numbers.h"
#include "report/nsys_stats.h"
#include "report/run_report.h"
#include "report/run_report_parts.h"

namespace kscope::report {

Result<Table> AllKernelsTable(store::Store& store, int64_t run_id, const analysis::ClassifyThresholds& thresholds) {
  auto timeline = TimelineRun(store, run_id);
  if (!timeline.ok()) return timeline.error();
  auto launches = analysis::LoadNcuLaunches(store, run_id);
  if (!launches.ok()) return launches.error();
  const auto verdicts = parts::Verdicts(*launches, thresholds);
  auto q = store.db().Prepare(fmt::format("SELECT s.value, k.n, k.total, k.mean {}", kKernelsInNsysOrder));
  if (!q.ok()) return q.error();
  q->Bind(1, *timeline);
  struct Row {
    std::string name;
    int64_t n, total;
    double mean;
  };
  std::vector<Row> rows;
  int64_t all_ns = 0;
  while (q->Step()) {
    rows.push_back({q->Text(0), q->Int(1), q->Int(2), q->Double(3)});
    all_ns += q->Int(2);
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  Table t;
  t.title = fmt::format("Every kernel of run {} by GPU time (nsys), with ncu's figures where profiled", run_id);
  t.columns = {"#",    "Time %", "Time (ns)", "Launches", "Avg (ns)",    "Family",    "Library", "Class",
               "SM %", "DRAM %", "L1 Hit %",  "L2 Hit %", "Occupancy %", "Top stall", "Name"};
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
                          id.family,
                          std::string(analysis::LibraryName(id.library)),
                          profiled ? Cell(v->second.bottleneck) : Cell(std::string("not profiled")),
                          figure(&KernelVerdict::sm_pct),
                          figure(&KernelVerdict::dram_pct),
                          figure(&KernelVerdict::l1_hit_pct),
                          figure(&KernelVerdict::l2_hit_pct),
                          figure(&KernelVerdict::achieved_occupancy_pct),
                          profiled && !v->second.top_stall.empty() ? Cell(v->second.top_stall) : Cell(),
                          r.name};
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace kscope::report
