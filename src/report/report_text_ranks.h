// The distributed view of a multi-GPU job's report in the terminal summary and report.md
// (report/report_text.h): the ranks table, each rank's stages on its own GPU and its top
// kernels, and the straggler's line.
#pragma once

#include <string>

#include "report/run_report.h"
#include "report/table.h"

namespace kscope::report {

// One row per rank: its GPU, kernel time split into compute and communication, the
// communication its compute does not hide, its waits, its collectives and the steady time of
// each top-level stage.
Table RanksTable(const RunReport& r);
// One row per rank and stage, as the rank's own report has it: instances, first and steady
// wall time, GPU busy %, MFU and MBU against one GPU's peak.
Table RankStagesTable(const RunReport& r);
// Each rank's five largest kernels by time.
Table RankKernelsTable(const RunReport& r);
// A collective kind's message bytes in MB (10^6 bytes, three decimals), "-" where the capture
// gave no sizes (nsys), "12.345 (3 of 4 sized)" where it gave some.
std::string CollectiveMegabytes(const analysis::RankCollective& c);
// "rank 1 arrives last at the collectives: 3.210 ms per step later than the others (...)".
std::string StragglerLine(const StragglerPart& s);

}  // namespace kscope::report
