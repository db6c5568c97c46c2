#include "report/atlas_html.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "report/atlas_report.h"
#include "report/display_numbers.h"
#include "report/html_assets.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"
#include "report/vega_runtime.h"

namespace kscope::report {

namespace {

using analysis::atlas::Atlas;
using analysis::atlas::Grouping;
using analysis::atlas::Spread;

constexpr std::string_view kScripts[] = {"charts_common.js", "chart_atlas.js", "render.js"};

// A figure as the page shows it: absent (n/a) when not finite.
std::optional<double> Shown(std::optional<double> v) { return v && std::isfinite(*v) ? v : std::nullopt; }
std::string Decimal(std::optional<double> v) { return DecimalText(Shown(v)); }
std::string Duration(int64_t ns) { return DurationText(static_cast<double>(ns)); }

// "45.2 [30.1-60.3]", or "" when no launch had the figure.
std::string SpreadText(const Spread& s) {
  if (s.launches == 0) return "";
  return fmt::format("{} [{}-{}]", Decimal(s.median), Decimal(s.p25), Decimal(s.p75));
}

std::string MixText(const std::map<std::string, int64_t>& mix) {
  std::string out;
  for (const auto& [name, n] : mix) out += (out.empty() ? "" : ", ") + name + " " + std::to_string(n);
  return out;
}

std::string ListText(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& v : list) out += (out.empty() ? "" : ", ") + v;
  return out;
}

// "(64, 1, 1)": a grid or block.
std::string DimsText(const std::array<int64_t, 3>& d) { return fmt::format("({}, {}, {})", d[0], d[1], d[2]); }

// The kernel column's text: the row's kernel by kernel, none by family (the column goes).
std::string KernelText(const Atlas& atlas, const std::string& key) {
  return atlas.grouping == Grouping::kKernel ? key : "";
}

// Tables list both the family and the kernel; by family, the kernel column is empty: gone.
void KeepKernelColumn(const Atlas& atlas, HtmlTable& table) {
  if (atlas.grouping == Grouping::kKernel) return;
  table.columns.erase(table.columns.begin() + 1);
  for (auto& row : table.rows) row.erase(row.begin() + 1);
}

void WriteRuns(const Atlas& atlas, std::ostream& out) {
  out << "<section id=\"runs\">\n<h2>Runs</h2>\n";
  HtmlTable table({"Run", "Model", "Launches", "GPU time", "Profiled launches"});
  for (const auto& r : atlas.runs) {
    table.rows.push_back({Num(std::to_string(r.id)),
                          {r.model},
                          Num(CountText(r.launches)),
                          Num(Duration(r.kernel_ns)),
                          Num(CountText(r.profiled_launches))});
  }
  WriteHtmlTable(table, out);
  out << "</section>\n";
}

void WritePopularity(const Atlas& atlas, std::ostream& out) {
  out << "<section id=\"popularity\">\n<h2>Popularity: share of each model's GPU time (nsys)</h2>\n";
  WriteChartPlace(
      "atlas-popularity",
      atlas.popularity.empty() ? std::optional<std::string>("The selected runs have no nsys kernels.") : std::nullopt,
      out);
  std::vector<std::string> headings{"Family", "Kernel", "Library", "Models", "Runs", "Launches", "GPU time"};
  for (const auto& m : atlas.models) headings.push_back(m + " %");
  HtmlTable table(headings);
  for (const auto& r : atlas.popularity) {
    std::vector<HtmlCell> row{Name(r.family),
                              Name(KernelText(atlas, r.key)),
                              {r.library},
                              Num(CountText(r.models)),
                              Num(CountText(r.runs)),
                              Num(CountText(r.launches)),
                              Num(Duration(r.gpu_time_ns))};
    for (const auto& m : atlas.models) {
      auto share = r.share_pct.find(m);
      row.push_back(Num(PercentText(share == r.share_pct.end() ? std::nullopt : Shown(share->second))));
    }
    table.rows.push_back(std::move(row));
  }
  KeepKernelColumn(atlas, table);
  WriteHtmlTable(table, out);
  out << "</section>\n";
}

void WritePerformance(const Atlas& atlas, std::ostream& out) {
  out << "<section id=\"performance\">\n<h2>Performance per family (ncu): median [p25-p75]</h2>\n";
  WriteChartPlace("atlas-classes",
                  atlas.performance.empty()
                      ? std::optional<std::string>("No selected run has ncu data: import a deep pass (kscope import "
                                                   "--run N REPORT.ncu-rep) to see classes and figures.")
                      : std::nullopt,
                  out);
  HtmlTable table({"Family", "Kernel", "Library", "Models", "Runs", "Profiled launches", "SM %", "DRAM %", "L1 hit %",
                   "L2 hit %", "Achieved occupancy %", "Theoretical occupancy %", "Classes", "Top stalls"});
  for (const auto& r : atlas.performance) {
    table.rows.push_back({Name(r.family),
                          Name(KernelText(atlas, r.key)),
                          {r.library},
                          Num(CountText(r.models)),
                          Num(CountText(r.runs)),
                          Num(CountText(r.launches)),
                          Num(SpreadText(r.sm_pct)),
                          Num(SpreadText(r.dram_pct)),
                          Num(SpreadText(r.l1_hit_pct)),
                          Num(SpreadText(r.l2_hit_pct)),
                          Num(SpreadText(r.achieved_occupancy_pct)),
                          Num(SpreadText(r.theoretical_occupancy_pct)),
                          {MixText(r.classes)},
                          {MixText(r.top_stalls)}});
  }
  KeepKernelColumn(atlas, table);
  WriteHtmlTable(table, out);
  out << "</section>\n";
}

// The launch configurations far below their family's median.
void WriteOutliers(const Atlas& atlas, std::ostream& out) {
  HtmlTable outliers({"Family", "Kernel", "Figure", "Family median", "Grid", "Block", "Waves", "Registers",
                      "Shared memory (B)", "Launches", "Models", "Median"});
  bool shapes = false;  // the launching ops' shapes, where an outlier has them
  for (const auto& r : atlas.correlates) {
    for (const auto& o : r.outliers) shapes = shapes || !o.shape.empty();
  }
  if (shapes) outliers.columns.emplace_back("Shape");
  for (const auto& r : atlas.correlates) {
    for (const auto& o : r.outliers) {
      outliers.rows.push_back({Name(r.family),
                               Name(o.kernel),
                               {std::string(FigureName(r.figure))},
                               Num(Decimal(r.median)),
                               Num(DimsText(o.grid)),
                               Num(DimsText(o.block)),
                               Num(Decimal(o.waves)),
                               Num(Decimal(o.registers)),
                               Num(Decimal(o.shared_bytes)),
                               Num(CountText(o.launches)),
                               {ListText(o.models)},
                               Num(Decimal(o.figure))});
      if (shapes) outliers.rows.back().push_back({o.shape});
    }
  }
  out << "<h3>Outliers: launch configurations far below their family's median</h3>\n";
  if (outliers.rows.empty()) {
    out << "<p>No launch configuration is far below its family's median.</p>\n";
  } else {
    WriteHtmlTable(outliers, out);
  }
}

void WriteCorrelates(const Atlas& atlas, std::ostream& out) {
  bool waves = false;
  for (const auto& r : atlas.correlates) {
    for (const auto& b : r.bins) waves = waves || b.parameter == analysis::atlas::Parameter::kWaves;
  }
  out << "<section id=\"correlates\">\n<h2>Launch correlates: performance against launch parameters (ncu)</h2>\n";
  WriteChartPlace("atlas-correlates",
                  waves ? std::nullopt
                        : std::optional<std::string>("No profiled launch has its waves per SM "
                                                     "(launch__waves_per_multiprocessor) and a figure (% of roof or SM "
                                                     "%)."),
                  out);
  WriteOutliers(atlas, out);
  HtmlTable bins(
      {"Family", "Kernel", "Figure", "Launches", "Median", "Parameter", "Bin", "Bin launches", "Bin figure"});
  for (const auto& r : atlas.correlates) {
    for (const auto& b : r.bins) {
      bins.rows.push_back({Name(r.family),
                           Name(KernelText(atlas, r.key)),
                           {std::string(FigureName(r.figure))},
                           Num(CountText(r.launches)),
                           Num(Decimal(r.median)),
                           {std::string(ParameterName(b.parameter))},
                           {b.bin},
                           Num(CountText(b.figure.launches)),
                           Num(SpreadText(b.figure))});
    }
  }
  KeepKernelColumn(atlas, bins);
  out << "<details><summary>Every family's bins (" << bins.rows.size() << " rows)</summary>\n";
  WriteHtmlTable(bins, out);
  out << "</details>\n</section>\n";
}

void WriteSignal(const analysis::atlas::Signal& s, std::ostream& out) {
  const std::string state(SignalStateName(s.state));
  out << "<div class=\"finding\"><p><span class=\"size\">" << EscapeHtml(state) << "</span> " << EscapeHtml(s.title)
      << "</p>\n";
  out << "<p>"
      << EscapeHtml(fmt::format("{} of {} families with the metrics; {} of the GPU time; models: {}", s.families.size(),
                                CountText(s.families_with_data), PercentText(Shown(s.gpu_time_pct)),
                                ListText(s.models)))
      << "</p>\n<p>Rule: " << EscapeHtml(s.rule) << "</p>\n<p>Rests on: " << EscapeHtml(ListText(s.metrics))
      << "</p>\n";
  if (state == "found") out << "<p class=\"fix\">Fix: " << EscapeHtml(s.advice) << "</p>\n";
  if (!s.families.empty()) {
    HtmlTable table({"Family", "Library", "Launches", "Showing it", "Models", "GPU time", s.detail_name});
    for (const auto& f : s.families) {
      table.rows.push_back({Name(f.family),
                            {f.library},
                            Num(CountText(f.launches)),
                            Num(CountText(f.matching)),
                            {ListText(f.models)},
                            Num(Duration(f.gpu_time_ns)),
                            Num(Decimal(f.detail)),
                            Num(Decimal(f.median_waves))});
    }
    WriteHtmlTable(table, out);
  }
  out << "</div>\n";
}

void WriteSignals(const Atlas& atlas, std::ostream& out) {
  out << "<section id=\"signals\">\n<h2>Systemic signals</h2>\n";
  for (const auto& s : atlas.signals) WriteSignal(s, out);
  out << "</section>\n";
}

void WriteCommunication(const Atlas& atlas, std::ostream& out) {
  out << "<section id=\"communication\">\n<h2>Communication by model (nsys): collectives and the time no compute "
         "hides</h2>\n";
  if (atlas.communication.empty()) {
    out << "<p>No selected run launched a communication kernel (NCCL, NVSHMEM or a custom all-reduce).</p>\n"
        << "</section>\n";
    return;
  }
  HtmlTable table({"Model", "Kind", "Runs", "Ranks", "Launches", "GPU time", "Share of the model's kernel time",
                   "Exposed", "Exposed %"});
  for (const auto& c : atlas.communication) {
    table.rows.push_back({{c.model},
                          {c.kind},
                          Num(CountText(c.runs)),
                          Num(CountText(c.ranks)),
                          Num(CountText(c.launches)),
                          Num(Duration(c.gpu_time_ns)),
                          Num(PercentText(Shown(c.share_pct))),
                          Num(Duration(c.exposed_ns)),
                          Num(PercentText(Shown(c.exposed_pct)))});
  }
  WriteHtmlTable(table, out);
  out << "</section>\n";
}

}  // namespace

Status WriteAtlasHtml(const Atlas& atlas, std::ostream& out) {
  Result<std::string> vega = VegaRuntimeScript(VegaOverrideDir());
  if (!vega.ok()) return vega.error();
  const Atlas clean = ForDisplay(atlas);
  const std::string title = fmt::format("kscope atlas: {} runs, {} models", clean.runs.size(), clean.models.size());
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" << EscapeHtml(title)
      << "</title>\n<style>\n"
      << HtmlAsset("report.css") << "</style>\n</head>\n<body>\n<header>\n<h1>" << EscapeHtml(title) << "</h1>\n"
      << "<noscript><p class=\"chart-empty\">The charts need JavaScript; the tables hold the same numbers.</p>"
         "</noscript>\n</header>\n<main>\n";
  WriteRuns(clean, out);
  WritePopularity(clean, out);
  WritePerformance(clean, out);
  WriteCorrelates(clean, out);
  WriteSignals(clean, out);
  WriteCommunication(clean, out);
  out << "</main>\n<footer>Written by kscope. Charts drawn by Vega (BSD-3-Clause), embedded from Debian's "
         "libjs-vega.</footer>\n";
  // The charts' data: the atlas as kscope atlas --format json writes it, its texts as shown.
  out << "<script type=\"application/json\" id=\"kscope-report\">" << JsonForScript(AtlasJson(clean)) << "</script>\n";
  out << "<script>\n" << *vega << "</script>\n<script>\n";
  for (std::string_view name : kScripts) out << HtmlAsset(name);
  out << "</script>\n</body>\n</html>\n";
  if (!out) return Error{"", "cannot write atlas.html", "check the disk has space and the folder is writable"};
  return Status::Ok();
}

}  // namespace kscope::report
