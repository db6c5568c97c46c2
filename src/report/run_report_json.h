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

// The file's text: ToJson indented by one space, a newline at the end, bytes that are not
// UTF-8 as U+FFFD.
std::string ReportJsonText(const RunReport& report);

}  // namespace kscope::report
