// The ranks of a multi-GPU job (report/run_report.h's `ranks` and `straggler`): a table, one
// row per rank, and the straggler's verdict. Absent for a run of one process.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "report/display_numbers.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"

namespace kscope::report {

void WriteRanksSection(const RunReport& report, std::ostream& out) {
  if (report.ranks.empty()) return;
  auto duration = [](double ns) { return Num(DurationText(ns)); };
  out << "<section id=\"ranks\">\n<h2>Ranks</h2>\n<p>Each process that launched GPU kernels is a rank. Exposed "
         "communication: communication kernel time on the rank's GPU that none of its compute kernels overlaps. "
         "Waits for peers: how long its collectives waited for the last rank to start them.</p>\n";
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
                     DurationText(static_cast<double>(c.ns));
    }
    row.push_back({collectives.empty() ? "-" : collectives});
    table.rows.push_back(std::move(row));
  }
  WriteHtmlTable(table, out);
  if (report.straggler) {
    const StragglerPart& s = *report.straggler;
    const std::string late = s.steps > 0 ? DurationText(s.late_per_step_ns) + " per " + s.step_stage
                                         : DurationText(static_cast<double>(s.late_ns)) + " in all";
    out << "<p><strong>Straggler: rank " << s.rank << "</strong> arrives last at the collectives, " << EscapeHtml(late)
        << " later than the others (" << CountText(s.matched)
        << " collectives matched across ranks).</p>\n<p>Fix: " << EscapeHtml(s.advice) << "</p>\n";
  }
  out << "</section>\n";
}

}  // namespace kscope::report
