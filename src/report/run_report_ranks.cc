// The per-rank parts of a run's report (report/run_report.h): `ranks` and `straggler`.
#include <algorithm>

#include "analysis/stages/stages.h"
#include "analysis/timeline/rank_figures.h"
#include "analysis/timeline/ranks.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

Status AddRanks(store::Store& store, int64_t timeline_run, const analysis::NsysEvents& nsys,
                const config::Config& config, RunReport& out) {
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
  out.ranks = std::move(analysis.ranks);
  out.straggler = std::move(analysis.straggler);
  return Status::Ok();
}

}  // namespace kscope::report::parts
