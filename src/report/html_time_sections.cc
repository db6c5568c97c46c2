// Sections about time: the NVTX stages with their MFU and MBU, and the timeline's idle/busy
// strip with its findings and largest idle gaps.
#include <optional>
#include <ostream>
#include <string>

#include "report/display_numbers.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/html_table.h"
#include "report/json_fields.h"

namespace kscope::report {

namespace {
// The range's own text ("decode") where the report has it, else nsys's name (":decode").
std::string StageName(const nlohmann::json& stage) {
  std::string text = TextField(stage, "text");
  return text.empty() ? TextField(stage, "name") : text;
}

// "1.2 MFLOP (ncu)": how much work a stage's MFU counts and where the number comes from.
std::string WorkText(const nlohmann::json& mfu) {
  std::string text = SiText(NumberField(mfu, "flops"), "FLOP");
  if (std::string source = TextField(mfu, "flops_source"); !source.empty()) text += " (" + source + ")";
  return text;
}

void WriteStageDetails(const nlohmann::json& stage, std::ostream& out) {
  const nlohmann::json& mfu = Field(stage, "mfu");
  const nlohmann::json& kernels = ListField(stage, "top_kernels");
  const nlohmann::json& findings = ListField(stage, "findings");
  const nlohmann::json& notes = ListField(mfu, "notes");
  if (kernels.empty() && findings.empty() && notes.empty()) return;
  out << "<details open>\n<summary>" << EscapeHtml(StageName(stage)) << "</summary>\n";
  for (const auto& note : notes) out << "<p>" << EscapeHtml(ValueText(note)) << "</p>\n";
  WriteFindings(findings, out);
  HtmlTable table({"Kernel", "Family", "Launches", "GPU time", "Share of the stage", "Bottleneck"});
  for (const auto& k : kernels) {
    table.rows.push_back({Name(TextField(k, "name")),
                          {TextField(k, "family")},
                          Num(CountText(IntegerField(k, "launches"))),
                          Num(DurationText(NumberField(k, "total_ns"))),
                          Num(PercentText(NumberField(k, "share_pct"))),
                          {BottleneckText(k)}});
  }
  if (!kernels.empty()) WriteHtmlTable(table, out);
  out << "</details>\n";
}

// "+1.23 s": a timestamp as the time since the timeline's start.
std::string Offset(std::optional<double> ns, std::optional<double> start) {
  if (!ns || !start) return "n/a";
  return "+" + DurationText(*ns - *start);
}
}  // namespace

void WriteStagesSection(const nlohmann::json& report, std::ostream& out) {
  const nlohmann::json& stages = ListField(report, "stages");
  out << "<section id=\"stages\">\n<h2>Stages (NVTX ranges) and MFU</h2>\n";
  WriteChartPlace("stages",
                  stages.empty() ? std::optional<std::string>(
                                       "This run has no NVTX ranges: mark its phases (torch.cuda.nvtx.range_push/pop, "
                                       "nvtxRangePush) to see time, MFU and findings per stage.")
                                 : std::nullopt,
                  out);
  HtmlTable table({"Stage", "Depth", "Instances", "Range time", "GPU busy", "Busy share", "Kernels", "Kernel time",
                   "Work", "Precision", "Coverage", "MFU", "MBU"});
  for (const auto& s : stages) {
    const nlohmann::json& mfu = Field(s, "mfu");
    table.rows.push_back({{StageName(s)},
                          Num(TextField(s, "depth")),
                          Num(CountText(IntegerField(s, "instances"))),
                          Num(DurationText(NumberField(s, "range_ns"))),
                          Num(DurationText(NumberField(s, "gpu_busy_ns"))),
                          Num(PercentText(NumberField(s, "gpu_busy_pct"))),
                          Num(CountText(IntegerField(s, "kernels"))),
                          Num(DurationText(NumberField(s, "kernel_ns"))),
                          Num(WorkText(mfu)),
                          {TextField(mfu, "precision")},
                          Num(PercentText(NumberField(mfu, "coverage_pct"))),
                          Num(PercentText(NumberField(mfu, "mfu_pct"))),
                          Num(PercentText(NumberField(mfu, "mbu_pct")))});
  }
  if (!stages.empty()) WriteHtmlTable(table, out);
  for (const auto& s : stages) WriteStageDetails(s, out);
  out << "</section>\n";
}

void WriteTimelineSection(const nlohmann::json& report, std::ostream& out) {
  const nlohmann::json& timeline = Field(report, "timeline");
  const nlohmann::json& bins = ListField(timeline, "bins");
  const nlohmann::json& gaps = ListField(timeline, "largest_gaps");
  const std::optional<double> start = NumberField(timeline, "start_ns");
  out << "<section id=\"timeline\">\n<h2>Timeline: GPU idle and busy</h2>\n";
  if (!bins.empty()) {
    out << "<p>GPU busy " << EscapeHtml(PercentText(NumberField(timeline, "gpu_busy_pct"))) << " of "
        << EscapeHtml(DurationText(start ? std::optional(NumberField(timeline, "end_ns").value_or(*start) - *start)
                                         : std::nullopt))
        << ": one cell per bin of the run's time, grey while the GPU idles, darker blue the busier it is; under the "
           "strip, the largest idle gaps (hover over a cell or gap for its numbers).</p>\n";
  }
  WriteChartPlace("timeline",
                  bins.empty() ? std::optional<std::string>("The run has no GPU activity to show.") : std::nullopt,
                  out);
  WriteFindings(ListField(timeline, "findings"), out);
  HtmlTable gap_table({"Idle gap from", "Duration", "Host CUDA calls in it"});
  for (const auto& g : gaps) {
    std::string host;
    for (const auto& h : ListField(g, "host")) {
      host += (host.empty() ? "" : "; ") + TextField(h, "api") + " x" + CountText(IntegerField(h, "calls")) + " " +
              DurationText(NumberField(h, "ns"));
    }
    gap_table.rows.push_back({Num(Offset(NumberField(g, "start_ns"), start)),
                              Num(DurationText(NumberField(g, "duration_ns"))),
                              {host.empty() ? "none" : host}});
  }
  if (!gaps.empty()) {
    out << "<h3>Largest idle gaps</h3>\n";
    WriteHtmlTable(gap_table, out);
  }
  HtmlTable bin_table({"From", "To", "GPU busy"});
  for (const auto& b : bins) {
    bin_table.rows.push_back({Num(Offset(NumberField(b, "start_ns"), start)),
                              Num(Offset(NumberField(b, "end_ns"), start)),
                              Num(PercentText(NumberField(b, "busy_pct")))});
  }
  if (!bins.empty()) {
    out << "<details>\n<summary>The strip's " << bins.size() << " bins</summary>\n";
    WriteHtmlTable(bin_table, out);
    out << "</details>\n";
  }
  out << "</section>\n";
}

}  // namespace kscope::report
