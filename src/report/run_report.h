// The report of one run, as data: every number of `kscope report` in one JSON document
// (report.json). The terminal summary, report.md and report.html are views of it.
//
// Sources: the run's nsys data (its timeline, stages and kernels) and its ncu data (classes,
// roofline, FLOPs). A run made by `kscope profile --discovery D` holds only ncu data; its
// timeline is the discovery run D's, which the report names.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::report {

// 2: run.nsys_version became run.nsys_export_version and run.nsys_tool_version.
inline constexpr int kReportVersion = 2;

Result<nlohmann::json> BuildRunReport(store::Store& store, int64_t run_id, const config::Config& config);

// The run whose nsys data a run's report reads: the run itself, or the discovery run its ncu
// launches are linked to (kscope profile --discovery).
Result<int64_t> TimelineRun(store::Store& store, int64_t run_id);

}  // namespace kscope::report
