// The parts of a run's report (report/run_report.h), each built from the analyses.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/kernels/bottleneck.h"
#include "analysis/kernels/ncu_launches.h"
#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/timeline.h"
#include "config/config.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::report::parts {

// What ncu says of each kernel, by KernelMatchKey of its name (ncu and nsys spell names
// differently): the class and top stall of its longest profiled launch group; occupancy
// averaged over its profiled launches, SM and DRAM throughput and the hit rates weighted by
// each launch's duration.
struct KernelVerdict {
  std::string bottleneck;
  std::optional<double> achieved_occupancy_pct, sm_pct, dram_pct, l1_hit_pct, l2_hit_pct;
  std::string top_stall;
  std::string why;                     // the class's evidence in one sentence
  std::vector<std::string> rests_on;   // the metrics the class rests on
  std::optional<double> stalls_total;  // every measured stall reason together ...
  std::string stall_unit;              // ... in "cycles/issue" or "% of active warps"
  double profiled_ns = 0;
  int64_t profiled_launches = 0;
};
std::map<std::string, KernelVerdict> Verdicts(const std::vector<analysis::NcuLaunch>& launches,
                                              const analysis::ClassifyThresholds& t);

// "top_kernels" and "bottleneck_mix" (nsys kernel time, ncu classes).
Status AddKernels(store::Store& store, int64_t timeline_run, const std::map<std::string, KernelVerdict>& verdicts,
                  nlohmann::json& out);
// "roofline": every profiled kernel per precision, and the roofs.
void AddRoofline(const std::vector<analysis::NcuLaunch>& launches, const analysis::ClassifyThresholds& t,
                 nlohmann::json& out);
// "stages": the NVTX stages with their GPU figures, top kernels, MFU/MBU and diagnosis.
Status AddStages(store::Store& store, int64_t timeline_run, const std::vector<analysis::NcuLaunch>& launches,
                 const analysis::NsysEvents& nsys, const analysis::TimelineEvents& events,
                 const std::map<std::string, KernelVerdict>& verdicts, const config::Config& config,
                 const std::string& gpu, const std::string& dtype, nlohmann::json& out);

// "notes" on what the numbers leave out: bad rows the import skipped (in `run_id` or
// `timeline_run`), NVTX ranges never closed.
Status AddDataNotes(store::Store& store, int64_t run_id, int64_t timeline_run, const analysis::NsysEvents& nsys,
                    nlohmann::json& out);

nlohmann::json FindingsJson(const std::vector<analysis::Finding>& findings);
// A number, or null when absent.
nlohmann::json Opt(const std::optional<double>& v);

}  // namespace kscope::report::parts
