// The ranks of a multi-GPU job (report/run_report.h's `ranks` and `straggler`): a table, one
// row per rank, and the straggler's verdict. Absent for a run of one process.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "report/display_numbers.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"

namespace kscope::report {

namespace {

std::string Util(const std::optional<double>& v) {
  if (!v) return "-";
  return *v >= 1 || *v == 0 ? fmt::format("{:.1f}%", *v) : fmt::format("{:.3g}%", *v);
}

// Each rank's stages on its own GPU, and its largest kernels.
void WriteRankStages(const RunReport& report, std::ostream& out) {
  auto duration = [](double ns) { return Num(DurationText(ns)); };
  out << "<h3>Stages per rank</h3>\n<p>Each rank's own instances on its own GPU; MFU and MBU against one GPU's "
         "peak.</p>\n";
  HtmlTable stages({"Rank", "Stage", "Instances", "First", "Steady", "Busy %", "MFU", "MBU"});
  for (const auto& rank : report.ranks) {
    for (const auto& s : rank.gpu_stages) {
      stages.rows.push_back({Num(std::to_string(rank.rank.rank)),
                             {std::string(static_cast<size_t>(s.depth) * 2, ' ') + s.stage},
                             Num(std::to_string(s.instances)),
                             duration(static_cast<double>(s.first_wall_ns)),
                             duration(s.median_wall_ns),
                             Num(fmt::format("{:.1f}%", s.gpu_busy_pct)),
                             Num(Util(s.mfu_pct)),
                             Num(Util(s.mbu_pct))});
    }
  }
  WriteHtmlTable(stages, out);
  out << "<h3>Top kernels per rank</h3>\n";
  HtmlTable kernels({"Rank", "#", "Time %", "Total", "Launches", "Kernel", "Family"});
  for (const auto& rank : report.ranks) {
    for (const auto& k : rank.top_kernels) {
      kernels.rows.push_back({Num(std::to_string(rank.rank.rank)),
                              Num(std::to_string(k.rank)),
                              Num(fmt::format("{:.1f}%", k.share_pct)),
                              duration(static_cast<double>(k.total_ns)),
                              Num(CountText(k.launches)),
                              Kernel(k.short_name, k.name),
                              {k.family}});
    }
  }
  WriteHtmlTable(kernels, out);
}

}  // namespace

void WriteRanksSection(const RunReport& report, std::ostream& out) {
  if (report.ranks.empty()) return;
  auto duration = [](double ns) { return Num(DurationText(ns)); };
  out << "<section id=\"ranks\">\n<h2>Ranks</h2>\n<p>Each process that launched GPU kernels is a rank. Exposed "
         "communication: communication kernel time on the rank's GPU that none of its compute kernels overlaps. "
         "Waits for peers: how long its collectives waited for the last rank to start them. Collectives: per kind, "
         "their count, time and message bytes (where the capture records sizes: a PyTorch profiler trace does, an "
         "nsys capture does not: -).</p>\n";
  std::vector<std::string> stages;
  for (const auto& rank : report.ranks) {
    for (const auto& st : rank.stages) {
      if (std::find(stages.begin(), stages.end(), st.stage) == stages.end()) stages.push_back(st.stage);
    }
  }
  std::vector<std::string> columns{"Rank",    "PID",           "GPU",           "Kernels",
                                   "Compute", "Communication", "Exposed comm.", "Waits for peers"};
  for (const auto& st : stages) columns.push_back("Steady " + st);
  columns.emplace_back("Collectives");
  HtmlTable table(columns);
  for (const auto& rank : report.ranks) {
    std::vector<HtmlCell> row{Num(std::to_string(rank.rank.rank)),
                              Num(std::to_string(rank.rank.pid)),
                              Num(std::to_string(rank.rank.device)),
                              duration(static_cast<double>(rank.kernel_ns)),
                              duration(static_cast<double>(rank.compute_ns)),
                              duration(static_cast<double>(rank.communication_ns)),
                              duration(static_cast<double>(rank.exposed_communication_ns)),
                              duration(static_cast<double>(rank.collective_wait_ns))};
    for (const auto& name : stages) {
      auto it = std::find_if(rank.stages.begin(), rank.stages.end(), [&](const auto& st) { return st.stage == name; });
      row.push_back(it == rank.stages.end() ? HtmlCell{"-"} : duration(it->median_wall_ns));
    }
    std::string collectives;
    for (const auto& c : rank.collectives) {
      collectives += (collectives.empty() ? "" : ", ") + c.kind + " " + CountText(c.count) + "\u00d7 " +
                     DurationText(static_cast<double>(c.ns)) + " " +
                     (c.bytes ? SiText(static_cast<double>(*c.bytes), "B") : std::string("-"));
      if (c.bytes && c.sized < c.count) collectives += fmt::format(" ({} of {} sized)", c.sized, c.count);
    }
    row.push_back({collectives.empty() ? "-" : collectives});
    table.rows.push_back(std::move(row));
  }
  WriteHtmlTable(table, out);
  WriteRankStages(report, out);
  if (report.straggler) {
    const StragglerPart& s = *report.straggler;
    const std::string late = s.steps > 0 ? DurationText(s.late_per_step_ns) + " per " + s.step_stage
                                         : DurationText(static_cast<double>(s.late_ns)) + " in all";
    out << "<p><strong>Straggler: rank " << s.rank << "</strong> arrives last at the collectives, " << EscapeHtml(late)
        << " later than the others ("
        << (s.matched_steady > 0 && s.steps > 0
                ? "over the " + CountText(s.matched_steady) + " collectives of " + CountText(s.steps) + " steady " +
                      EscapeHtml(s.step_stage) + " instances; " + CountText(s.matched) + " matched across ranks in all"
                : CountText(s.matched) + " collectives matched across ranks")
        << ").</p>\n<p>Fix: " << EscapeHtml(s.advice) << "</p>\n";
    if (!s.overlap_advice.empty()) out << "<p>Overlap: " << EscapeHtml(s.overlap_advice) << "</p>\n";
  }
  out << "</section>\n";
}

}  // namespace kscope::report
