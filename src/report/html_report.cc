#include "report/html_report.h"

#include <ostream>
#include <string>
#include <string_view>

#include "report/html_assets.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/run_report_json.h"
#include "report/vega_runtime.h"

namespace kscope::report {

namespace {
// The page's scripts after Vega, in order: shared helpers, one file per chart, then the
// code that draws them.
constexpr std::string_view kChartScripts[] = {
    "charts_common.js",        "chart_top_kernels.js", "chart_roofline.js",      "chart_stages.js",
    "chart_bottleneck_mix.js", "chart_timeline.js",    "chart_critical_path.js", "render.js"};

void WriteHeader(const RunPart& run, std::ostream& out) {
  std::string title = run.manifest.label.value_or("");
  if (title.empty()) title = "run " + std::to_string(run.id);
  if (run.rank) title += ", rank " + std::to_string(run.rank->rank);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>kscope report: " << EscapeHtml(title) << "</title>\n<style>\n"
      << HtmlAsset("report.css") << "</style>\n</head>\n<body>\n<header>\n<h1>kscope report: " << EscapeHtml(title)
      << "</h1>\n";
  std::string lead;
  for (const std::string& value : {run.manifest.model.value_or(""), run.manifest.gpu.value_or(""), run.imported_at}) {
    if (!value.empty()) lead += (lead.empty() ? "" : " \u00b7 ") + value;
  }
  if (!lead.empty()) out << "<p class=\"lead\">" << EscapeHtml(lead) << "</p>\n";
  out << "<noscript><p class=\"chart-empty\">The charts need JavaScript; the tables hold the same numbers.</p>"
         "</noscript>\n</header>\n";
}
}  // namespace

Status WriteHtmlReport(const RunReport& report, std::ostream& out) {
  Result<std::string> vega = VegaRuntimeScript(VegaOverrideDir());
  if (!vega.ok()) return vega.error();
  const RunReport clean = ForDisplay(report);
  WriteHeader(clean.run, out);
  out << "<main>\n";
  WriteHeadlineSection(clean, out);
  WriteRunSection(clean, out);
  WriteIterationsSection(clean, out);
  WriteCriticalPathSection(clean, out);
  WriteTopKernelsSection(clean, out);
  WriteEvidenceSection(clean, out);
  WriteRooflineSection(clean, out);
  WriteStagesSection(clean, out);
  WriteRanksSection(clean, out);
  WriteBottleneckMixSection(clean, out);
  WriteTimelineSection(clean, out);
  WriteNotesSection(clean, out);
  out << "</main>\n<footer>Written by kscope. Charts drawn by Vega (BSD-3-Clause), embedded from Debian's "
         "libjs-vega.</footer>\n";
  // The charts' data: the report as report.json holds it, its texts as the page shows them.
  out << "<script type=\"application/json\" id=\"kscope-report\">" << JsonForScript(ToJson(clean)) << "</script>\n";
  out << "<script>\n" << *vega << "</script>\n<script>\n";
  for (std::string_view name : kChartScripts) out << HtmlAsset(name);
  out << "</script>\n</body>\n</html>\n";
  if (!out) return Error{"", "cannot write the HTML report", "check the disk has space and the folder is writable"};
  return Status::Ok();
}

}  // namespace kscope::report
