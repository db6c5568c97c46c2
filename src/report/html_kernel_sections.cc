// Sections about kernels: the top kernels by GPU time, the roofline of the profiled ones,
// and GPU time by bottleneck class.
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "report/display_numbers.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"
#include "report/report_text_path.h"

namespace kscope::report {

namespace {

// A percentage as ncu gives it, marked '!' above 100% (the notes say why).
std::string GivenPercent(std::optional<double> pct) { return PercentText(pct) + (pct && *pct > 100 ? "!" : ""); }

// A point a log-log chart can place: intensity and achieved FLOP/s both above zero.
bool Plottable(const RooflinePoint& point) {
  return std::isfinite(point.intensity) && std::isfinite(point.achieved_flops) && point.intensity > 0 &&
         point.achieved_flops > 0;
}
std::string Duration(int64_t ns) { return DurationText(static_cast<double>(ns)); }
}  // namespace

std::string BottleneckText(std::string_view bottleneck) {
  if (bottleneck.empty()) return "not profiled";
  return std::string(bottleneck);
}

void WriteCriticalPathSection(const RunReport& report, std::ostream& out) {
  if (!report.critical_path) return;
  const CriticalPathPart& p = *report.critical_path;
  out << "<section id=\"critical-path\">\n<h2>Critical path of " << EscapeHtml(StepName(p.steps)) << "</h2>\n<p>"
      << "What one step waits on, from the run's dependency graph: " << EscapeHtml(p.marked_by) << ", median "
      << DurationText(p.median_step_ns) << " over " << p.steps_count << " steps, the " << p.typical_steps
      << " within half and twice the median averaged (kscope whatif replays it with changes).</p>\n";
  double total = 0;
  for (const auto& [part, ns] : p.parts) total += ns;
  HtmlTable parts({"Runs through", "Per step", "Share of the path"});
  for (const auto& [part, ns] : p.parts) {
    parts.rows.push_back({{part}, Num(DurationText(ns)), Num(PercentText(total > 0 ? 100 * ns / total : 0))});
  }
  WriteHtmlTable(parts, out);
  if (p.drawing) {
    const PathDrawing& d = *p.drawing;
    out << "<p>Step " << d.step << " of the " << p.steps_count << " (the median), "
        << DurationText(static_cast<double>(d.end_ns - d.start_ns))
        << ": its critical path on the threads and streams it ran on";
    if (d.pieces_left_out > 0) {
      out << " (the " << CountText(static_cast<int64_t>(d.pieces.size())) << " longest pieces; "
          << CountText(d.pieces_left_out) << " shorter ones are too short to see)";
    }
    out << ".</p>\n";
    WriteChartPlace("critical-path",
                    d.pieces.empty() ? std::optional<std::string>("The path has no piece to draw.") : std::nullopt,
                    out);
  }
  if (!p.ranks.empty()) {
    const Table by_rank = PathRanksTable(p);
    HtmlTable ranks({"Rank", "On the path (ms)", "Share of the path", "Mostly"});
    for (const auto& row : by_rank.rows) {
      ranks.rows.push_back({Num(CellText(row[0])), Num(CellText(row[1])), Num(CellText(row[2])), {CellText(row[3])}});
    }
    WriteHtmlTable(ranks, out);
  }
  if (!p.kernels.empty()) {
    HtmlTable kernels({"Kernel", "Launches", "GPU time", "On the path", "Share on the path"});
    for (const auto& k : p.kernels) {
      kernels.rows.push_back({Kernel(k.short_name, k.name), Num(CountText(k.launches)), Num(DurationText(k.gpu_ns)),
                              Num(DurationText(k.path_ns)),
                              Num(PercentText(k.gpu_ns > 0 ? 100 * k.path_ns / k.gpu_ns : 0))});
    }
    WriteHtmlTable(kernels, out);
  }
  out << "</section>\n";
}

void WriteTopKernelsSection(const RunReport& report, std::ostream& out) {
  const std::vector<TopKernel>& kernels = report.top_kernels;
  out << "<section id=\"top-kernels\">\n<h2>"
      << (report.critical_path ? "Top kernels by time on the critical path" : "Top kernels by GPU time") << "</h2>\n";
  WriteChartPlace("top-kernels",
                  kernels.empty() ? std::optional<std::string>("This run has no kernels.") : std::nullopt, out);
  HtmlTable table({"#", "Kernel", "Family", "Library", "Launches", "GPU time", "Average", "Share",
                   "On the critical path", "Twice as fast saves", "Bottleneck", "SM", "DRAM", "L1 hit", "L2 hit",
                   "Achieved occupancy", "Top stall"});
  for (const auto& k : kernels) {
    const KernelVerdict none;
    const KernelVerdict& v = k.verdict ? *k.verdict : none;
    table.rows.push_back({Num(std::to_string(k.rank)),
                          Kernel(k.short_name, k.name),
                          {k.family},
                          {k.library},
                          Num(CountText(k.launches)),
                          Num(Duration(k.total_ns)),
                          Num(DurationText(k.avg_ns)),
                          Num(PercentText(k.share_pct)),
                          Num(PercentText(k.path_pct)),
                          Num(k.worth_2x ? DurationText(k.worth_2x->saving_ns) : "-"),
                          {BottleneckText(v.bottleneck)},
                          Num(GivenPercent(v.sm_pct)),
                          Num(GivenPercent(v.dram_pct)),
                          Num(GivenPercent(v.l1_hit_pct)),
                          Num(GivenPercent(v.l2_hit_pct)),
                          Num(GivenPercent(v.achieved_occupancy_pct)),
                          {v.top_stall}});
  }
  if (!kernels.empty()) WriteHtmlTable(table, out);
  if (const std::string off = OffPathText(report); !off.empty()) out << "<p>" << EscapeHtml(off) << ".</p>\n";
  out << "</section>\n";
}

void WriteRooflineSection(const RunReport& report, std::ostream& out) {
  const std::vector<RooflinePoint>& points = report.roofline.points;
  const std::vector<Roof>& roofs = report.roofline.roofs;
  size_t plottable = 0;
  for (const auto& p : points) plottable += Plottable(p) ? 1 : 0;
  std::optional<std::string> empty;
  if (points.empty()) {
    empty =
        "No roofline: no kernel of this run was profiled with ncu's roofline metrics. Profile it with kscope profile, "
        "or import ncu results collected with --set roofline (or --set full).";
  } else if (plottable == 0) {
    empty = "No roofline point can be drawn: the profiled kernels show no DRAM traffic or no floating-point work.";
  }
  out << "<section id=\"roofline\">\n<h2>Roofline</h2>\n";
  WriteChartPlace("roofline", empty, out);
  if (plottable < points.size() && plottable > 0) {
    out << "<p>" << points.size() - plottable
        << " of the points below are not drawn: without DRAM traffic or work of their precision they have no place on "
           "log axes.</p>\n";
  }
  HtmlTable table(
      {"Kernel", "Family", "Precision", "Intensity (FLOP/byte)", "Achieved", "Peak", "% of roof", "Bottleneck"});
  for (const auto& p : points) {
    table.rows.push_back({Kernel(p.short_name, p.kernel),
                          {p.family},
                          {p.precision},
                          Num(DecimalText(p.intensity)),
                          Num(SiText(p.achieved_flops, "FLOP/s")),
                          Num(SiText(p.peak_flops, "FLOP/s")),
                          Num(PercentText(p.pct_of_roof)),
                          {BottleneckText(p.bottleneck)}});
  }
  if (!points.empty()) WriteHtmlTable(table, out);
  HtmlTable roof_table({"Precision", "Peak compute", "Peak DRAM bandwidth", "Ridge (FLOP/byte)"});
  for (const auto& r : roofs) {
    roof_table.rows.push_back({{r.precision},
                               Num(SiText(r.peak_flops, "FLOP/s")),
                               Num(SiText(r.peak_dram_bytes_per_s, "B/s")),
                               Num(DecimalText(r.ridge))});
  }
  if (!roofs.empty()) {
    out << "<h3>Roofs</h3>\n";
    if (!empty) out << "<p>The chart draws the roofs of the precisions its points have.</p>\n";
    WriteHtmlTable(roof_table, out);
  }
  out << "</section>\n";
}

void WriteBottleneckMixSection(const RunReport& report, std::ostream& out) {
  const std::vector<BottleneckShare>& mix = report.bottleneck_mix;
  out << "<section id=\"bottleneck-mix\">\n<h2>GPU time by bottleneck</h2>\n";
  WriteChartPlace("bottleneck-mix",
                  mix.empty() ? std::optional<std::string>("No kernel time to divide by bottleneck.") : std::nullopt,
                  out);
  HtmlTable table({"Bottleneck", "GPU time", "Share", "Kernels"});
  for (const auto& b : mix) {
    table.rows.push_back({{BottleneckText(b.bottleneck)},
                          Num(Duration(b.total_ns)),
                          Num(PercentText(b.share_pct)),
                          Num(CountText(b.kernels))});
  }
  if (!mix.empty()) WriteHtmlTable(table, out);
  out << "</section>\n";
}

}  // namespace kscope::report
