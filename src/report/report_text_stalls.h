// The stall evidence of a run's profiled kernels, as the terminal summary, report.md and
// report.html show it (report/report_text.h, report/html_sections.h): each profiled kernel's
// class, the metrics the class rests on, and its warp-stall breakdown (every measured reason,
// its value as ncu gives it and its share of the stalled warp cycles).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "report/run_report.h"
#include "report/table.h"

namespace kscope::report {

// "long_scoreboard 41.2%, barrier 12.0%, wait 9.1%": the top three reasons and their shares;
// "-" without stall metrics.
std::string TopStallsText(const KernelVerdict& v);

// "#3", or "-" for a profiled kernel that is not among the top kernels.
std::string RankText(const ProfiledKernel& k);

// The profiled kernels, one row each: short name, class, the metrics the class rests on.
Table EvidenceTable(const RunReport& r);

// "elementwise:silu (launch): long_scoreboard 30.6%, wait 25.9%, short_scoreboard 16.8%".
std::string StallLine(const ProfiledKernel& k);

// One kernel's breakdown: every reason, its value in the verdict's unit and its share.
Table StallTable(const KernelVerdict& v);

// The terminal's lines: each profiled kernel's top three stall reasons.
void WriteTerminalStalls(const RunReport& r, std::ostream& out);
// report.md's section: the evidence table and each profiled kernel's whole breakdown.
void WriteMarkdownEvidence(const RunReport& r, std::ostream& out);

// Why the stall evidence is empty, in one sentence; none when a profiled kernel has it.
std::optional<std::string> NoStallsReason(const RunReport& r);

}  // namespace kscope::report
