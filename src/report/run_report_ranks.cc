// The per-rank parts of a run's report (report/run_report.h): `ranks` and `straggler`.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "analysis/stages/stages.h"
#include "analysis/timeline/rank_figures.h"
#include "analysis/timeline/ranks.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

Status AddRanks(store::Store& store, int64_t timeline_run, const analysis::NsysEvents& nsys,
                const std::vector<analysis::NcuLaunch>& launches, const analysis::AnalysisOptions& config,
                RunReport& out) {
  auto ranks = analysis::ReadRanks(store, timeline_run);
  if (!ranks.ok()) return ranks.error();
  if (ranks->size() < 2) return Status::Ok();
  std::vector<int64_t> ids(nsys.kernels.name.begin(), nsys.kernels.name.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto names = store.Strings(ids);
  if (!names.ok()) return names.error();
  auto stages = analysis::ComputeStages(store, timeline_run, &nsys);
  if (!stages.ok()) return stages.error();
  auto analysis = analysis::AnalyzeRanks(nsys, *ranks, *names, *stages, config.stages.warmup);
  // The ranks ncu profiled: its pass is a run of its own (other process IDs), so a rank is
  // known by its GPU (ncu --devices of profile.ncu_rank), where no other rank shares it.
  std::set<int64_t> profiled;
  for (const auto& l : launches) {
    int64_t on_device = 0, which = -1;
    for (const auto& r : *ranks) {
      if (l.key.device && *l.key.device == r.device) ++on_device, which = r.rank;
    }
    if (on_device == 1) profiled.insert(which);
  }
  std::string measured = "ncu's FLOPs";
  if (profiled.size() == 1) measured = fmt::format("the FLOPs ncu measured on rank {}'s GPU", *profiled.begin());
  out.notes.push_back(fmt::format(
      "{} ranks: the stages pool the instances of every rank (each rank's own steady time is in the ranks table); "
      "stage MFU and MBU are the mean per instance over the ranks against one GPU's peak, from {} (never from a "
      "communication kernel)",
      ranks->size(), measured));
  out.ranks = std::move(analysis.ranks);
  out.straggler = std::move(analysis.straggler);
  return Status::Ok();
}

}  // namespace kscope::report::parts
