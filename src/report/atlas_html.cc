#include "report/atlas_html.h"

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <string_view>

#include "report/display_numbers.h"
#include "report/html_assets.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"
#include "report/json_fields.h"
#include "report/vega_runtime.h"

namespace kscope::report {

namespace {

constexpr std::string_view kScripts[] = {"charts_common.js", "chart_atlas.js", "render.js"};

// "45.2 [30.1-60.3]" from a spread object, or "" when no launch had the figure.
std::string SpreadText(const nlohmann::json& s) {
  if (IntegerField(s, "launches").value_or(0) == 0) return "";
  return fmt::format("{} [{}-{}]", DecimalText(NumberField(s, "median")), DecimalText(NumberField(s, "p25")),
                     DecimalText(NumberField(s, "p75")));
}

std::string MixText(const nlohmann::json& mix) {
  std::string out;
  if (!mix.is_object()) return out;
  for (const auto& [name, n] : mix.items()) out += (out.empty() ? "" : ", ") + name + " " + ValueText(n);
  return out;
}

std::string ListText(const nlohmann::json& list) {
  std::string out;
  if (!list.is_array()) return out;
  for (const auto& v : list) out += (out.empty() ? "" : ", ") + ValueText(v);
  return out;
}

// Tables list both the family and the kernel; by family, the kernel column is empty: gone.
void KeepKernelColumn(const nlohmann::json& atlas, HtmlTable& table) {
  if (TextField(atlas, "grouping") == "kernel") return;
  table.columns.erase(table.columns.begin() + 1);
  for (auto& row : table.rows) row.erase(row.begin() + 1);
}

void WritePopularity(const nlohmann::json& atlas, std::ostream& out) {
  const auto& rows = ListField(atlas, "popularity");
  const auto& models = ListField(atlas, "models");
  out << "<section id=\"popularity\">\n<h2>Popularity: share of each model's GPU time (nsys)</h2>\n";
  WriteChartPlace("atlas-popularity",
                  rows.empty() ? std::optional<std::string>("The selected runs have no nsys kernels.") : std::nullopt,
                  out);
  std::vector<std::string> headings{"Family", "Kernel", "Library", "Models", "Runs", "Launches", "GPU time"};
  for (const auto& m : models) headings.push_back(ValueText(m) + " %");
  HtmlTable table(headings);
  for (const auto& r : rows) {
    std::vector<HtmlCell> row{Name(TextField(r, "family")),
                              Name(TextField(r, "kernel")),
                              {TextField(r, "library")},
                              Num(CountText(IntegerField(r, "models"))),
                              Num(CountText(IntegerField(r, "runs"))),
                              Num(CountText(IntegerField(r, "launches"))),
                              Num(DurationText(NumberField(r, "gpu_time_ns")))};
    for (const auto& m : models) row.push_back(Num(PercentText(NumberField(Field(r, "share"), ValueText(m)))));
    table.rows.push_back(std::move(row));
  }
  KeepKernelColumn(atlas, table);
  WriteHtmlTable(table, out);
  out << "</section>\n";
}

void WritePerformance(const nlohmann::json& atlas, std::ostream& out) {
  const auto& rows = ListField(atlas, "performance");
  out << "<section id=\"performance\">\n<h2>Performance per family (ncu): median [p25-p75]</h2>\n";
  WriteChartPlace("atlas-classes",
                  rows.empty() ? std::optional<std::string>(
                                     "No selected run has ncu data: import a deep pass (kscope import --run N "
                                     "REPORT.ncu-rep) to see classes and figures.")
                               : std::nullopt,
                  out);
  HtmlTable table({"Family", "Kernel", "Library", "Models", "Runs", "Profiled launches", "SM %", "DRAM %", "L1 hit %",
                   "L2 hit %", "Achieved occupancy %", "Theoretical occupancy %", "Classes", "Top stalls"});
  for (const auto& r : rows) {
    table.rows.push_back({Name(TextField(r, "family")),
                          Name(TextField(r, "kernel")),
                          {TextField(r, "library")},
                          Num(CountText(IntegerField(r, "models"))),
                          Num(CountText(IntegerField(r, "runs"))),
                          Num(CountText(IntegerField(r, "launches"))),
                          Num(SpreadText(Field(r, "sm_pct"))),
                          Num(SpreadText(Field(r, "dram_pct"))),
                          Num(SpreadText(Field(r, "l1_hit_pct"))),
                          Num(SpreadText(Field(r, "l2_hit_pct"))),
                          Num(SpreadText(Field(r, "achieved_occupancy_pct"))),
                          Num(SpreadText(Field(r, "theoretical_occupancy_pct"))),
                          {MixText(Field(r, "classes"))},
                          {MixText(Field(r, "top_stalls"))}});
  }
  KeepKernelColumn(atlas, table);
  WriteHtmlTable(table, out);
  out << "</section>\n";
}

void WriteCorrelates(const nlohmann::json& atlas, std::ostream& out) {
  const auto& rows = ListField(atlas, "correlates");
  bool waves = false;
  for (const auto& r : rows) {
    for (const auto& b : ListField(r, "bins")) waves = waves || TextField(b, "parameter") == "waves per SM";
  }
  out << "<section id=\"correlates\">\n<h2>Launch correlates: performance against launch parameters (ncu)</h2>\n";
  WriteChartPlace("atlas-correlates",
                  waves ? std::nullopt
                        : std::optional<std::string>("No profiled launch has its waves per SM "
                                                     "(launch__waves_per_multiprocessor) and a figure (% of roof or SM "
                                                     "%)."),
                  out);
  HtmlTable outliers({"Family", "Kernel", "Figure", "Family median", "Grid", "Block", "Waves", "Registers",
                      "Shared memory (B)", "Launches", "Models", "Median"});
  bool shapes = false;  // the launching ops' shapes, where an outlier has them
  for (const auto& r : rows) {
    for (const auto& o : ListField(r, "outliers")) shapes = shapes || !TextField(o, "shape").empty();
  }
  if (shapes) outliers.columns.emplace_back("Shape");
  for (const auto& r : rows) {
    for (const auto& o : ListField(r, "outliers")) {
      auto dims = [&](std::string_view key) {
        const auto& d = Field(o, key);
        return d.is_array() && d.size() == 3
                   ? fmt::format("({}, {}, {})", ValueText(d[0]), ValueText(d[1]), ValueText(d[2]))
                   : std::string();
      };
      outliers.rows.push_back({Name(TextField(r, "family")),
                               Name(TextField(o, "kernel")),
                               {TextField(r, "figure")},
                               Num(DecimalText(NumberField(r, "median"))),
                               Num(dims("grid")),
                               Num(dims("block")),
                               Num(DecimalText(NumberField(o, "waves"))),
                               Num(DecimalText(NumberField(o, "registers"))),
                               Num(DecimalText(NumberField(o, "shared_bytes"))),
                               Num(CountText(IntegerField(o, "launches"))),
                               {ListText(Field(o, "models"))},
                               Num(DecimalText(NumberField(o, "median")))});
      if (shapes) outliers.rows.back().push_back({TextField(o, "shape")});
    }
  }
  out << "<h3>Outliers: launch configurations far below their family's median</h3>\n";
  if (outliers.rows.empty()) {
    out << "<p>No launch configuration is far below its family's median.</p>\n";
  } else {
    WriteHtmlTable(outliers, out);
  }
  HtmlTable bins(
      {"Family", "Kernel", "Figure", "Launches", "Median", "Parameter", "Bin", "Bin launches", "Bin figure"});
  for (const auto& r : rows) {
    for (const auto& b : ListField(r, "bins")) {
      bins.rows.push_back({Name(TextField(r, "family")),
                           Name(TextField(r, "kernel")),
                           {TextField(r, "figure")},
                           Num(CountText(IntegerField(r, "launches"))),
                           Num(DecimalText(NumberField(r, "median"))),
                           {TextField(b, "parameter")},
                           {TextField(b, "bin")},
                           Num(CountText(IntegerField(b, "launches"))),
                           Num(SpreadText(b))});
    }
  }
  KeepKernelColumn(atlas, bins);
  out << "<details><summary>Every family's bins (" << bins.rows.size() << " rows)</summary>\n";
  WriteHtmlTable(bins, out);
  out << "</details>\n</section>\n";
}

void WriteSignals(const nlohmann::json& atlas, std::ostream& out) {
  out << "<section id=\"signals\">\n<h2>Systemic signals</h2>\n";
  for (const auto& s : ListField(atlas, "signals")) {
    const std::string state = TextField(s, "state");
    out << "<div class=\"finding\"><p><span class=\"size\">" << EscapeHtml(state) << "</span> "
        << EscapeHtml(TextField(s, "title")) << "</p>\n";
    out << "<p>"
        << EscapeHtml(fmt::format("{} of {} families with the metrics; {} of the GPU time; models: {}",
                                  ListField(s, "families").size(), CountText(IntegerField(s, "families_with_data")),
                                  PercentText(NumberField(s, "gpu_time_pct")), ListText(Field(s, "models"))))
        << "</p>\n<p>Rule: " << EscapeHtml(TextField(s, "rule"))
        << "</p>\n<p>Rests on: " << EscapeHtml(ListText(Field(s, "metrics"))) << "</p>\n";
    if (state == "found") out << "<p class=\"fix\">Fix: " << EscapeHtml(TextField(s, "advice")) << "</p>\n";
    const auto& families = ListField(s, "families");
    if (!families.empty()) {
      HtmlTable table(
          {"Family", "Library", "Launches", "Showing it", "Models", "GPU time", TextField(s, "detail_name")});
      for (const auto& f : families) {
        table.rows.push_back({Name(TextField(f, "family")),
                              {TextField(f, "library")},
                              Num(CountText(IntegerField(f, "launches"))),
                              Num(CountText(IntegerField(f, "matching"))),
                              {ListText(Field(f, "models"))},
                              Num(DurationText(NumberField(f, "gpu_time_ns"))),
                              Num(DecimalText(NumberField(f, "detail"))),
                              Num(DecimalText(NumberField(f, "median_waves")))});
      }
      WriteHtmlTable(table, out);
    }
    out << "</div>\n";
  }
  out << "</section>\n";
}

}  // namespace

Status WriteAtlasHtml(const nlohmann::json& atlas, std::ostream& out) {
  Result<std::string> vega = VegaRuntimeScript(VegaOverrideDir());
  if (!vega.ok()) return vega.error();
  const nlohmann::json clean = ForDisplay(atlas);
  const auto& runs = ListField(clean, "runs");
  const std::string title =
      fmt::format("kscope atlas: {} runs, {} models", runs.size(), ListField(clean, "models").size());
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" << EscapeHtml(title)
      << "</title>\n<style>\n"
      << HtmlAsset("report.css") << "</style>\n</head>\n<body>\n<header>\n<h1>" << EscapeHtml(title) << "</h1>\n"
      << "<noscript><p class=\"chart-empty\">The charts need JavaScript; the tables hold the same numbers.</p>"
         "</noscript>\n</header>\n<main>\n<section id=\"runs\">\n<h2>Runs</h2>\n";
  HtmlTable table({"Run", "Model", "Launches", "GPU time", "Profiled launches"});
  for (const auto& r : runs) {
    table.rows.push_back({Num(TextField(r, "id")),
                          {TextField(r, "model")},
                          Num(CountText(IntegerField(r, "launches"))),
                          Num(DurationText(NumberField(r, "gpu_time_ns"))),
                          Num(CountText(IntegerField(r, "profiled_launches")))});
  }
  WriteHtmlTable(table, out);
  out << "</section>\n";
  WritePopularity(clean, out);
  WritePerformance(clean, out);
  WriteCorrelates(clean, out);
  WriteSignals(clean, out);
  out << "</main>\n<footer>Written by kscope. Charts drawn by Vega (BSD-3-Clause), embedded from Debian's "
         "libjs-vega.</footer>\n";
  out << "<script type=\"application/json\" id=\"kscope-report\">" << JsonForScript(clean) << "</script>\n";
  out << "<script>\n" << *vega << "</script>\n<script>\n";
  for (std::string_view name : kScripts) out << HtmlAsset(name);
  out << "</script>\n</body>\n</html>\n";
  if (!out) return Error{"", "cannot write atlas.html", "check the disk has space and the folder is writable"};
  return Status::Ok();
}

}  // namespace kscope::report
