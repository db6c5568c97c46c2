#include "report/report_text_stalls.h"

#include <fmt/format.h>

#include <ostream>

#include "report/report_text.h"

namespace kscope::report {

std::string TopStallsText(const KernelVerdict& v) {
  std::string out;
  for (size_t i = 0; i < v.stalls.size() && i < 3; ++i) {
    out += fmt::format("{}{} {:.1f}%", out.empty() ? "" : ", ", v.stalls[i].reason, v.stalls[i].share);
  }
  return out.empty() ? "-" : out;
}

std::string RankText(const ProfiledKernel& k) { return k.rank ? "#" + std::to_string(*k.rank) : "-"; }

Table EvidenceTable(const RunReport& r) {
  Table t;
  t.title = "What each profiled kernel's class rests on (ncu)";
  t.columns = {"Top kernel", "Kernel", "Class", "Why", "Rests on"};
  for (const auto& k : r.profiled) {
    t.rows.push_back({RankText(k), k.short_name, k.verdict.bottleneck, k.verdict.why,
                      fmt::format("{}", fmt::join(k.verdict.rests_on, ", "))});
  }
  return t;
}

std::string StallLine(const ProfiledKernel& k) {
  return fmt::format("{} ({}): {}", k.short_name, k.verdict.bottleneck, TopStallsText(k.verdict));
}

Table StallTable(const KernelVerdict& v) {
  Table t;
  t.columns = {"Stall reason", v.stall_unit.empty() ? "Value" : "Value (" + v.stall_unit + ")",
               "Share of stalled warp cycles"};
  for (const auto& s : v.stalls) {
    t.rows.push_back({s.reason, fmt::format("{:.2f}", s.value), fmt::format("{:.1f}%", s.share)});
  }
  if (v.stalls_total) t.rows.push_back({std::string("all reasons"), fmt::format("{:.2f}", *v.stalls_total), "100.0%"});
  return t;
}

std::optional<std::string> NoStallsReason(const RunReport& r) {
  for (const auto& k : r.profiled) {
    if (!k.verdict.stalls.empty()) return std::nullopt;
  }
  if (r.profiled.empty()) return "No stall breakdown: the run has no ncu data.";
  return "No stall breakdown: the ncu results of this run carry no warp-stall metrics (WarpStateStats; kscope "
         "profile collects them with ncu.stalls=on, the default).";
}

// The top three stall reasons of every profiled kernel (the top kernels' column shows only theirs).
void WriteTerminalStalls(const RunReport& r, std::ostream& out) {
  if (r.profiled.empty()) return;
  out << "\nStalls of the profiled kernels (ncu; report.md has every reason)\n";
  if (const auto none = NoStallsReason(r)) {
    out << "  " << *none << "\n";
    return;
  }
  for (const auto& k : r.profiled) out << "  " << StallLine(k) << "\n";
}

// Each profiled top kernel's class with the metrics it rests on, and its stall breakdown.
void WriteMarkdownEvidence(const RunReport& r, std::ostream& out) {
  out << "## Evidence per profiled kernel\n\n";
  if (r.profiled.empty()) {
    out << "None: the run has no ncu data.\n\n";
    return;
  }
  WriteMarkdownTable(EvidenceTable(r), out);
  if (const auto none = NoStallsReason(r)) {
    out << "### Stall breakdown\n\n" << MarkdownText(*none) << "\n\n";
    return;
  }
  for (const auto& k : r.profiled) {
    if (k.verdict.stalls.empty()) continue;
    out << fmt::format("### Stalls of {}\n\n", MarkdownText(k.short_name));
    WriteMarkdownTable(StallTable(k.verdict), out);
  }
}

}  // namespace kscope::report
