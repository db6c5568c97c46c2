// Sections about kernels: the top kernels by GPU time, the roofline of the profiled ones,
// and GPU time by bottleneck class.
#include <ostream>
#include <string>

#include "report/display_numbers.h"
#include "report/html_sections.h"
#include "report/html_table.h"
#include "report/json_fields.h"

namespace kscope::report {

namespace {
// A point a log-log chart can place: intensity and achieved FLOP/s both above zero.
bool Plottable(const nlohmann::json& point) {
  return NumberField(point, "intensity").value_or(0) > 0 && NumberField(point, "achieved_flops").value_or(0) > 0;
}
}  // namespace

std::string BottleneckText(const nlohmann::json& row) {
  std::string bottleneck = TextField(row, "bottleneck");
  if (bottleneck.empty()) return "not profiled";
  return bottleneck;
}

void WriteTopKernelsSection(const nlohmann::json& report, std::ostream& out) {
  const nlohmann::json& kernels = ListField(report, "top_kernels");
  out << "<section id=\"top-kernels\">\n<h2>Top kernels by GPU time</h2>\n";
  WriteChartPlace("top-kernels",
                  kernels.empty() ? std::optional<std::string>("This run has no kernels.") : std::nullopt, out);
  HtmlTable table({"#", "Kernel", "Family", "Library", "Launches", "GPU time", "Average", "Share", "Bottleneck", "SM",
                   "DRAM", "L1 hit", "L2 hit", "Achieved occupancy", "Top stall"});
  for (const auto& k : kernels) {
    table.rows.push_back({Num(TextField(k, "rank")),
                          Name(TextField(k, "name")),
                          {TextField(k, "family")},
                          {TextField(k, "library")},
                          Num(CountText(IntegerField(k, "launches"))),
                          Num(DurationText(NumberField(k, "total_ns"))),
                          Num(DurationText(NumberField(k, "avg_ns"))),
                          Num(PercentText(NumberField(k, "share_pct"))),
                          {BottleneckText(k)},
                          Num(PercentText(NumberField(k, "sm_pct"))),
                          Num(PercentText(NumberField(k, "dram_pct"))),
                          Num(PercentText(NumberField(k, "l1_hit_pct"))),
                          Num(PercentText(NumberField(k, "l2_hit_pct"))),
                          Num(PercentText(NumberField(k, "achieved_occupancy_pct"))),
                          {TextField(k, "top_stall")}});
  }
  if (!kernels.empty()) WriteHtmlTable(table, out);
  out << "</section>\n";
}

void WriteRooflineSection(const nlohmann::json& report, std::ostream& out) {
  const nlohmann::json& roofline = Field(report, "roofline");
  const nlohmann::json& points = ListField(roofline, "points");
  const nlohmann::json& roofs = ListField(roofline, "roofs");
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
    table.rows.push_back({Name(TextField(p, "kernel")),
                          {TextField(p, "family")},
                          {TextField(p, "precision")},
                          Num(DecimalText(NumberField(p, "intensity"))),
                          Num(SiText(NumberField(p, "achieved_flops"), "FLOP/s")),
                          Num(SiText(NumberField(p, "peak_flops"), "FLOP/s")),
                          Num(PercentText(NumberField(p, "pct_of_roof"))),
                          {BottleneckText(p)}});
  }
  if (!points.empty()) WriteHtmlTable(table, out);
  HtmlTable roof_table({"Precision", "Peak compute", "Peak DRAM bandwidth", "Ridge (FLOP/byte)"});
  for (const auto& r : roofs) {
    roof_table.rows.push_back({{TextField(r, "precision")},
                               Num(SiText(NumberField(r, "peak_flops"), "FLOP/s")),
                               Num(SiText(NumberField(r, "peak_dram_bytes_per_s"), "B/s")),
                               Num(DecimalText(NumberField(r, "ridge")))});
  }
  if (!roofs.empty()) {
    out << "<h3>Roofs</h3>\n";
    if (!empty) out << "<p>The chart draws the roofs of the precisions its points have.</p>\n";
    WriteHtmlTable(roof_table, out);
  }
  out << "</section>\n";
}

void WriteBottleneckMixSection(const nlohmann::json& report, std::ostream& out) {
  const nlohmann::json& mix = ListField(report, "bottleneck_mix");
  out << "<section id=\"bottleneck-mix\">\n<h2>GPU time by bottleneck</h2>\n";
  WriteChartPlace("bottleneck-mix",
                  mix.empty() ? std::optional<std::string>("No kernel time to divide by bottleneck.") : std::nullopt,
                  out);
  HtmlTable table({"Bottleneck", "GPU time", "Share", "Kernels"});
  for (const auto& b : mix) {
    table.rows.push_back({{BottleneckText(b)},
                          Num(DurationText(NumberField(b, "total_ns"))),
                          Num(PercentText(NumberField(b, "share_pct"))),
                          Num(CountText(IntegerField(b, "kernels")))});
  }
  if (!mix.empty()) WriteHtmlTable(table, out);
  out << "</section>\n";
}

}  // namespace kscope::report
