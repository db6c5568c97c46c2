// The steps that build a run's report (report/run_report.h), each a part from the analyses.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/kernels/bottleneck.h"
#include "analysis/kernels/ncu_launches.h"
#include "analysis/options.h"
#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/rank_selection.h"
#include "analysis/timeline/timeline.h"
#include "report/run_report.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::report::parts {

// What ncu says of each kernel, by KernelMatchKey of its name.
std::map<std::string, KernelVerdict> Verdicts(const std::vector<analysis::NcuLaunch>& launches,
                                              const analysis::ClassifyThresholds& t);

// The top kernels and the bottleneck mix (nsys kernel time, ncu classes): the run's stored
// kernel summary, or, with `rank`, that of the rank's kernels.
Status AddKernels(store::Store& store, int64_t timeline_run, const analysis::RankSelection* rank,
                  const std::map<std::string, KernelVerdict>& verdicts, RunReport& out);
// Every profiled kernel per precision, and the roofs.
RooflinePart Roofline(const std::vector<analysis::NcuLaunch>& launches, const analysis::ClassifyThresholds& t);

// What the stages' steps share: the run, its events, its ncu launches and their verdicts.
struct StageInputs {
  int64_t timeline_run = 0;
  const std::vector<analysis::NcuLaunch>& launches;
  const analysis::NsysEvents& nsys;        // the whole run's
  const analysis::RankSelection* rank;     // the stages of this rank alone; null: of the run
  const analysis::TimelineEvents& events;  // the run's, or the rank's
  const std::map<std::string, KernelVerdict>& verdicts;
  const analysis::AnalysisOptions& config;
  std::string gpu, dtype;
};
// The NVTX stages with their GPU figures, top kernels, MFU/MBU and diagnosis; notes on the
// ranges not listed as stages (PyTorch's operator ranges, libraries' ranges).
Status AddStages(store::Store& store, const StageInputs& in, RunReport& out);

// What the per-GPU parts (timeline, summary, top kernels, roofline, stages) are computed from:
// the whole run's events, or one rank's (`rank`).
struct GpuInputs {
  int64_t timeline_run = 0;
  const analysis::NsysEvents& nsys;  // the whole run's
  const analysis::RankSelection* rank;
  const std::vector<analysis::NcuLaunch>& launches;
  const std::map<std::string, KernelVerdict>& verdicts;
  const analysis::AnalysisOptions& config;
  std::string gpu, dtype;
};
Status AddGpuParts(store::Store& store, const GpuInputs& in, RunReport& out);

// The ranks of a run of several processes that launched kernels (run_rank), each with its
// figures (its own per-GPU parts, from `in` with each rank), and the straggler; nothing for a
// run of one process. A note says how the stage figures treat the ranks, and whose GPU ncu
// profiled.
Status AddRanks(store::Store& store, const GpuInputs& in, const std::vector<analysis::RunRank>& ranks, RunReport& out);
// The note of a report of one rank (--rank): whose figures they are, and whose FLOPs.
std::string RankReportNote(const analysis::RunRank& rank, const std::vector<analysis::RunRank>& ranks,
                           const std::vector<analysis::NcuLaunch>& launches);

// Notes on what the numbers leave out: bad rows the import skipped (in `run_id` or
// `timeline_run`), NVTX ranges never closed.
Status AddDataNotes(store::Store& store, int64_t run_id, int64_t timeline_run, const analysis::NsysEvents& nsys,
                    std::vector<std::string>& notes);

// The loop of a run without NVTX stages (its iterations, their MFU and findings), the run's
// phases (start-up, compilation, warm-up, steady, tail), what the workload already does, the
// headline verdict; every finding's advice fitted to the workload. After AddStages.
Status AddIterations(store::Store& store, const StageInputs& in, RunReport& out);
// The critical path of the run's steps, and the top kernels' share on it, in that order
// (run_report_path.cc); nothing for one rank's report.
Status AddCriticalPath(store::Store& store, const GpuInputs& in, RunReport& out);

// A stage's MFU as report.json holds it: figures not finite are absent.
analysis::StageMfu ReportedMfu(analysis::StageMfu m);

// A run kscope profile did not finish (status not 'complete'): what stopped and what is
// missing, for the top of every view (out.incomplete).
Status AddCompleteness(store::Store& store, const store::RunInfo& run, int64_t profiled_launches, RunReport& out);

// A note on the top kernels' ncu percentages above 100% (shown as given, marked in the views).
void AddAboveHundredNote(RunReport& out);

// An optional figure as report.json holds it: absent when not finite.
std::optional<double> Finite(const std::optional<double>& v);

}  // namespace kscope::report::parts
