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
// The name kscope shows: the range's text in the default domain ("decode"), "domain:text"
// in a named one; nsys's name (":decode") for a report without it.
std::string StageName(const nlohmann::json& stage) {
  std::string display = TextField(stage, "display_name");
  if (!display.empty()) return display;
  std::string text = TextField(stage, "text");
  return text.empty() ? TextField(stage, "name") : text;
}

// "1.2 TFLOP (ncu)": the FLOPs per steady instance that the stage's MFU counts, and whose.
std::string WorkText(const nlohmann::json& mfu) {
  const std::string headline = TextField(mfu, "mfu_line");
  std::optional<double> flops;
  for (const auto& l : ListField(mfu, "lines")) {
    if (TextField(l, "name") == headline) flops = NumberField(l, "flops");
  }
  if (!flops) return "n/a";
  std::string text = SiText(flops, "FLOP");
  text += " (" + headline + ")";
  return text;
}

// Work other threads of the process launched while the stage was open (the autograd thread).
void WriteOtherThreads(const nlohmann::json& stage, std::ostream& out) {
  const nlohmann::json& other = Field(stage, "other_threads");
  if (NumberField(other, "ops").value_or(0) <= 0) return;
  out << "<p>" << EscapeHtml(CountText(IntegerField(other, "ops"))) << " of "
      << EscapeHtml(CountText(IntegerField(stage, "ops")))
      << " GPU operations were launched by other threads of the process while the stage was open:</p>\n";
  HtmlTable table({"Thread", "Thread id", "GPU operations", "Kernel time", "Copy and set time"});
  for (const auto& t : ListField(other, "threads")) {
    table.rows.push_back({{TextField(t, "name").empty() ? "(unnamed)" : TextField(t, "name")},
                          Num(CountText(IntegerField(t, "tid"))),
                          Num(CountText(IntegerField(t, "ops"))),
                          Num(DurationText(NumberField(t, "kernel_ns"))),
                          Num(DurationText(NumberField(t, "memop_ns")))});
  }
  WriteHtmlTable(table, out);
}

// The stage's instances: first against steady, and the spread.
void WriteInstances(const nlohmann::json& stage, std::ostream& out) {
  const nlohmann::json& steady = Field(stage, "steady");
  if (IntegerField(stage, "instances").value_or(0) < 2) return;
  HtmlTable table({"Instances", "First", "Median", "Min", "Max", "Steady median"});
  auto row = [&](const std::string& what, const char* spread, const char* median) {
    const nlohmann::json& s = Field(steady, spread);
    table.rows.push_back({{what},
                          Num(DurationText(NumberField(s, "first_ns"))),
                          Num(DurationText(NumberField(s, "median_ns"))),
                          Num(DurationText(NumberField(s, "min_ns"))),
                          Num(DurationText(NumberField(s, "max_ns"))),
                          Num(median == nullptr ? "" : DurationText(NumberField(steady, median)))});
  };
  row("Range time (CPU)", "range", nullptr);
  row("Wall time (to the end of its GPU work)", "wall", "median_wall_ns");
  row("GPU time", "gpu", "median_gpu_ns");
  WriteHtmlTable(table, out);
  out << "<p>Steady: the " << EscapeHtml(CountText(IntegerField(steady, "instances"))) << " instances after the first "
      << EscapeHtml(CountText(IntegerField(steady, "warmup")))
      << " (warm-up, config stages.warmup); MFU and the verdict use them.</p>\n";
}

// Each way of counting the stage's FLOPs and the MFU it gives.
void WriteMfuLines(const nlohmann::json& mfu, std::ostream& out) {
  const nlohmann::json& lines = ListField(mfu, "lines");
  if (lines.empty()) return;
  HtmlTable table({"FLOPs counted as", "FLOPs per instance", "FLOP/s", "MFU", "How"});
  for (const auto& l : lines) {
    table.rows.push_back({{TextField(l, "name")},
                          Num(SiText(NumberField(l, "flops"), "FLOP")),
                          Num(SiText(NumberField(l, "flops_per_s"), "FLOP/s")),
                          Num(PercentText(NumberField(l, "mfu_pct"))),
                          {TextField(l, "formula")}});
  }
  WriteHtmlTable(table, out);
}

void WriteStageDetails(const nlohmann::json& stage, std::ostream& out) {
  const nlohmann::json& mfu = Field(stage, "mfu");
  const nlohmann::json& kernels = ListField(stage, "top_kernels");
  const nlohmann::json& findings = ListField(stage, "findings");
  const nlohmann::json& notes = ListField(mfu, "notes");
  if (kernels.empty() && findings.empty() && notes.empty()) return;
  out << "<details open>\n<summary>" << EscapeHtml(StageName(stage)) << "</summary>\n";
  WriteOtherThreads(stage, out);
  WriteInstances(stage, out);
  WriteMfuLines(mfu, out);
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
  HtmlTable table({"Stage", "Depth", "Instances", "Range time", "GPU ops", "of other threads", "Kernel time",
                   "Steady wall", "GPU busy (steady)", "Work per instance", "Precision", "Coverage", "MFU", "MBU"});
  for (const auto& s : stages) {
    const nlohmann::json& mfu = Field(s, "mfu");
    table.rows.push_back({{StageName(s)},
                          Num(TextField(s, "depth")),
                          Num(CountText(IntegerField(s, "instances"))),
                          Num(DurationText(NumberField(s, "range_ns"))),
                          Num(CountText(IntegerField(s, "ops"))),
                          Num(CountText(IntegerField(Field(s, "other_threads"), "ops"))),
                          Num(DurationText(NumberField(s, "kernel_ns"))),
                          Num(DurationText(NumberField(Field(s, "steady"), "median_wall_ns"))),
                          Num(PercentText(NumberField(s, "gpu_busy_pct"))),
                          Num(WorkText(mfu)),
                          {TextField(Field(mfu, "peak"), "precision")},
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
