// Sections about time: the NVTX stages with their MFU and MBU, and the timeline's idle/busy
// strip with its findings and largest idle gaps.
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
// The name kscope shows: the range's text in the default domain ("decode"), "domain:text"
// in a named one; nsys's name (":decode") when it has neither.
const std::string& StageName(const StagePart& stage) {
  if (!stage.display_name.empty()) return stage.display_name;
  return stage.text.empty() ? stage.name : stage.text;
}

std::string Duration(int64_t ns) { return DurationText(static_cast<double>(ns)); }

// "1.2 TFLOP (ncu)": the FLOPs per steady instance that the stage's MFU counts, and whose.
std::string WorkText(const analysis::StageMfu& mfu) {
  const std::string& headline = mfu.mfu_line;
  std::optional<double> flops;
  for (const auto& l : mfu.lines) {
    if (l.name == headline) flops = l.flops;
  }
  if (!flops) return "n/a";
  std::string text = SiText(flops, "FLOP");
  text += " (" + headline + ")";
  return text;
}

// Work other threads of the process launched while the stage was open (the autograd thread).
void WriteOtherThreads(const StagePart& stage, std::ostream& out) {
  const OtherThreadsPart& other = stage.other_threads;
  if (other.ops <= 0) return;
  out << "<p>" << EscapeHtml(CountText(other.ops)) << " of " << EscapeHtml(CountText(stage.ops))
      << " GPU operations were launched by other threads of the process while the stage was open:</p>\n";
  HtmlTable table({"Thread", "Thread id", "GPU operations", "Kernel time", "Copy and set time"});
  for (const auto& t : other.threads) {
    table.rows.push_back({{t.name.empty() ? "(unnamed)" : t.name},
                          Num(CountText(t.global_tid & 0xFFFFFF)),
                          Num(CountText(t.ops)),
                          Num(Duration(t.kernel_ns)),
                          Num(Duration(t.memop_ns))});
  }
  WriteHtmlTable(table, out);
}

// The stage's instances: first against steady, and the spread.
void WriteInstances(const StagePart& stage, std::ostream& out) {
  const analysis::StageSteady& steady = stage.steady;
  if (stage.instances < 2) return;
  HtmlTable table({"Instances", "First", "Median", "Min", "Max", "Steady median"});
  auto row = [&](const std::string& what, const analysis::InstanceSpread& s, std::optional<double> median) {
    table.rows.push_back({{what},
                          Num(Duration(s.first)),
                          Num(DurationText(s.median)),
                          Num(Duration(s.min)),
                          Num(Duration(s.max)),
                          Num(median ? DurationText(*median) : "")});
  };
  row("Range time (CPU)", steady.range, std::nullopt);
  row("Wall time (to the end of its GPU work)", steady.wall, steady.median_wall_ns);
  row("GPU time", steady.gpu, steady.median_gpu_ns);
  WriteHtmlTable(table, out);
  out << "<p>Steady: the " << EscapeHtml(CountText(steady.steady)) << " instances after the first "
      << EscapeHtml(CountText(steady.warmup))
      << " (warm-up, config stages.warmup); MFU and the verdict use them.</p>\n";
}

// Each way of counting the stage's FLOPs and the MFU it gives.
void WriteMfuLines(const analysis::StageMfu& mfu, std::ostream& out) {
  if (mfu.lines.empty()) return;
  HtmlTable table({"FLOPs counted as", "FLOPs per instance", "FLOP/s", "MFU", "How"});
  for (const auto& l : mfu.lines) {
    table.rows.push_back({{l.name},
                          Num(SiText(l.flops, "FLOP")),
                          Num(SiText(l.flops_per_s, "FLOP/s")),
                          Num(PercentText(l.mfu_pct)),
                          {l.formula}});
  }
  WriteHtmlTable(table, out);
}

void WriteStageDetails(const StagePart& stage, std::ostream& out) {
  if (stage.top_kernels.empty() && stage.findings.empty() && stage.mfu.notes.empty()) return;
  out << "<details open>\n<summary>" << EscapeHtml(StageName(stage)) << "</summary>\n";
  WriteOtherThreads(stage, out);
  WriteInstances(stage, out);
  WriteMfuLines(stage.mfu, out);
  for (const auto& note : stage.mfu.notes) out << "<p>" << EscapeHtml(note) << "</p>\n";
  WriteFindings(stage.findings, out);
  HtmlTable table({"Kernel", "Family", "Launches", "GPU time", "Share of the stage", "Bottleneck"});
  for (const auto& k : stage.top_kernels) {
    table.rows.push_back({Kernel(k.short_name, k.name),
                          {k.family},
                          Num(CountText(k.launches)),
                          Num(Duration(k.total_ns)),
                          Num(PercentText(k.share_pct)),
                          {BottleneckText(k.bottleneck.value_or(""))}});
  }
  if (stage.top_kernels.empty()) {
    out << "<p class=\"empty\">No kernels: nothing the stage's thread launched while it was open ran a kernel.</p>\n";
  } else {
    WriteHtmlTable(table, out);
  }
  out << "</details>\n";
}

// "+1.23 s": a timestamp as the time since the timeline's start.
std::string Offset(int64_t ns, int64_t start) {
  return "+" + DurationText(static_cast<double>(ns) - static_cast<double>(start));
}

void WriteGaps(const TimelinePart& timeline, std::ostream& out) {
  const std::vector<analysis::Gap>& gaps = timeline.diagnosis.largest_gaps;
  if (gaps.empty()) {
    if (!timeline.diagnosis.bins.empty()) {
      out << "<p class=\"empty\">No idle gaps to list: the GPU was never idle for as long as timeline.min_gap_us "
             "between its operations.</p>\n";
    }
    return;
  }
  HtmlTable gap_table({"Idle gap from", "Duration", "Host CUDA calls in it"});
  for (const auto& g : gaps) {
    std::string host;
    for (const auto& h : g.host) {
      host += (host.empty() ? "" : "; ") + h.api + " x" + CountText(h.calls) + " " + Duration(h.ns);
    }
    gap_table.rows.push_back(
        {Num(Offset(g.start, timeline.start_ns)), Num(Duration(g.end - g.start)), {host.empty() ? "none" : host}});
  }
  out << "<h3>Largest idle gaps</h3>\n";
  WriteHtmlTable(gap_table, out);
}

void WriteBins(const TimelinePart& timeline, std::ostream& out) {
  const std::vector<analysis::BusyBin>& bins = timeline.diagnosis.bins;
  if (bins.empty()) return;
  HtmlTable bin_table({"From", "To", "GPU busy"});
  for (const auto& b : bins) {
    bin_table.rows.push_back(
        {Num(Offset(b.start, timeline.start_ns)), Num(Offset(b.end, timeline.start_ns)), Num(PercentText(b.busy_pct))});
  }
  out << "<details>\n<summary>The strip's " << bins.size() << " bins</summary>\n";
  WriteHtmlTable(bin_table, out);
  out << "</details>\n";
}
}  // namespace

void WriteStagesSection(const RunReport& report, std::ostream& out) {
  const std::vector<StagePart>& stages = report.stages;
  out << "<section id=\"stages\">\n<h2>Stages (NVTX ranges) and MFU</h2>\n";
  WriteChartPlace("stages",
                  stages.empty() ? std::optional<std::string>(
                                       "This run has no NVTX ranges: mark its phases (torch.cuda.nvtx.range_push/pop, "
                                       "nvtxRangePush) to see time, MFU and findings per stage.")
                                 : std::nullopt,
                  out);
  HtmlTable table({"Stage", "Depth", "Instances", "Range time", "GPU ops", "of other threads", "Kernel time",
                   "Steady wall", "GPU busy (steady)", "Work per instance", "Precision",
                   "FLOP coverage (compute kernel time)", "MFU", "MBU"});
  for (const auto& s : stages) {
    const analysis::StageMfu& mfu = s.mfu;
    table.rows.push_back({{StageName(s)},
                          Num(std::to_string(s.depth)),
                          Num(CountText(s.instances)),
                          Num(Duration(s.range_ns)),
                          Num(CountText(s.ops)),
                          Num(CountText(s.other_threads.ops)),
                          Num(Duration(s.kernel_ns)),
                          Num(DurationText(s.steady.median_wall_ns)),
                          Num(PercentText(s.gpu_busy_pct)),
                          Num(WorkText(mfu)),
                          {mfu.peak ? mfu.peak->precision : ""},
                          Num(PercentText(mfu.coverage_pct)),
                          Num(PercentText(mfu.mfu_pct)),
                          Num(PercentText(mfu.mbu_pct))});
  }
  if (!stages.empty()) WriteHtmlTable(table, out);
  for (const auto& s : stages) WriteStageDetails(s, out);
  out << "</section>\n";
}

void WriteTimelineSection(const RunReport& report, std::ostream& out) {
  const TimelinePart& timeline = report.timeline;
  const std::vector<analysis::BusyBin>& bins = timeline.diagnosis.bins;
  out << "<section id=\"timeline\">\n<h2>Timeline: GPU idle and busy</h2>\n";
  if (!bins.empty()) {
    out << "<p>GPU busy " << EscapeHtml(PercentText(timeline.diagnosis.gpu_busy_pct)) << " of "
        << EscapeHtml(DurationText(static_cast<double>(timeline.end_ns) - static_cast<double>(timeline.start_ns)))
        << ": one cell per bin of the run's time, grey while the GPU idles, darker blue the busier it is; under the "
           "strip, the largest idle gaps (hover over a cell or gap for its numbers).</p>\n";
  }
  WriteChartPlace("timeline",
                  bins.empty() ? std::optional<std::string>("The run has no GPU activity to show.") : std::nullopt,
                  out);
  WriteFindings(timeline.diagnosis.findings, out);
  WriteGaps(timeline, out);
  WriteBins(timeline, out);
  out << "</section>\n";
}

}  // namespace kscope::report
