// report.json: the run's report (report/run_report.h) as JSON. ToJson is the only place the
// file's keys are spelled; docs/report.md lists them. Absent figures are null.
#pragma once

#include <nlohmann/json.hpp>

#include "report/run_report.h"

namespace kscope::report {

nlohmann::json ToJson(const RunReport& report);

// Parts of it written in run_report_json_profiled.cc: a stall breakdown (reason, value,
// share_pct), and every profiled kernel with its verdict and breakdown.
nlohmann::json StallsJson(const std::vector<analysis::Stall>& stalls);
nlohmann::json ProfiledKernelsJson(const std::vector<ProfiledKernel>& kernels);

// Parts written in run_report_json_loop.cc: a rank of a job, its straggler, and the run's loop
// (the headline verdict, the iterations, the phases, what the workload already does).
nlohmann::json RankJson(const RankPart& r);
nlohmann::json StragglerJson(const StragglerPart& s);
nlohmann::json HeadlineJson(const HeadlinePart& h);
nlohmann::json IterationsJson(const IterationPart& p);
nlohmann::json PhasesJson(const std::vector<analysis::RunPhase>& phases);
nlohmann::json WorkloadJson(const WorkloadPart& w);

// Parts both files write (run_report_json.cc): findings, an MFU, sampled GPU metrics, kernel rows.
nlohmann::json FindingsJson(const std::vector<analysis::Finding>& findings);
nlohmann::json MfuJson(const analysis::StageMfu& m);
nlohmann::json GpuMetricsJson(const analysis::SampledGpuMetrics& m);
nlohmann::json KernelsJson(const std::vector<TopKernel>& kernels);

// The file's text: ToJson indented by one space, a newline at the end, bytes that are not
// UTF-8 as U+FFFD.
std::string ReportJsonText(const RunReport& report);

}  // namespace kscope::report
