// The critical path's tables (report/critical_path_part.h) for the terminal and report.md.
#pragma once

#include <string>

#include "report/run_report.h"
#include "report/table.h"

namespace kscope::report {

// "an iteration", or "an instance of stage 'step'".
std::string StepName(const std::string& steps);

// "saves 1.234 ms of a 5.000 ms step of 'step' (24.7%; whatif graph@decode)", "at most ..."
// for an upper bound; empty without a worth.
std::string WorthText(const analysis::Finding& f);

// The top kernels off the critical path and what a step waits on instead: "Off the critical path:
// #2 gemm, ... (5 of the top 20 kernels, 1.234 ms of GPU time): speeding them up saves nothing
// until ..."; empty without a path or with every top kernel on it.
std::string OffPathText(const RunReport& r);

// What a step saves were the kernel twice as fast, ms per step ("-" without a path).
std::string Worth2xText(const TopKernel& k);

// What one step waits on: each part of the path, its time per step and share of the path.
Table CriticalPathTable(const CriticalPathPart& p);
// A job's ranks on the path: each rank's time on it and what it spends it in.
Table PathRanksTable(const CriticalPathPart& p);
// The kernels on the path, by their time on it.
Table PathKernelsTable(const CriticalPathPart& p, size_t name_width);

}  // namespace kscope::report
