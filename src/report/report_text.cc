#include "report/report_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "report/nsys_numbers.h"
#include "report/report_text_iterations.h"
#include "report/report_text_path.h"
#include "report/report_text_ranks.h"
#include "report/report_text_stalls.h"
#include "report/table.h"

namespace kscope::report {

namespace {

std::string Ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }
std::string Ms(int64_t ns) { return Ms(static_cast<double>(ns)); }
std::string Pct(std::optional<double> v, int decimals = 1) { return v ? fmt::format("{:.{}f}%", *v, decimals) : "-"; }
// A utilization, small ones with three significant digits (decode's MFU is 0.000321%).
std::string Util(std::optional<double> v) {
  if (!v) return "-";
  const double x = *v;
  return x >= 1 || x == 0 ? fmt::format("{:.1f}%", x) : fmt::format("{:.3g}%", x);
}
std::string Sci(std::optional<double> v) {
  if (!v) return "-";
  const double x = *v;
  if (x >= 1e12) return fmt::format("{:.2f} T", x / 1e12);
  if (x >= 1e9) return fmt::format("{:.2f} G", x / 1e9);
  if (x >= 1e6) return fmt::format("{:.2f} M", x / 1e6);
  return fmt::format("{:.0f}", x);
}
// A kernel's share of kernel time rounded as nsys's cuda_gpu_kern_sum rounds its Time (%).
std::string SharePct(double v) { return Round1(v).text + "%"; }
std::string Short(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; }
std::string OrDash(const std::optional<std::string>& s) { return s ? *s : "-"; }
// A percentage as ncu gives it, marked '!' above 100% (a note says why).
std::string Given(std::optional<double> v) { return v && *v > 100 ? Pct(v) + "!" : Pct(v); }

// The stage's main verdict: its largest finding's title, else what its numbers say.
std::string Verdict(const StagePart& stage) {
  if (!stage.findings.empty()) return stage.findings[0].title;
  return fmt::format("GPU busy {:.1f}%", stage.gpu_busy_pct);
}

Table StagesTable(const RunReport& r) {
  Table t;
  t.title = "Stages (NVTX ranges; GPU work launched inside, by every thread of the process)";
  if (!r.ranks.empty()) {  // a job of several ranks: per GPU, over every rank's steady instances
    t.title = fmt::format(
        "Stages (NVTX ranges; GPU work launched inside, by every thread of the process; {} ranks pooled, each warming "
        "up: Busy %, MFU and MBU per GPU, the ranks' mean; verdicts of rank {}'s GPU{})",
        r.ranks.size(), r.straggler ? r.straggler->rank : 0, r.straggler ? ", the straggler" : "");
  }
  t.columns = {"Stage",   "Instances",    "Range (ms)", "Projected (ms)",
               "GPU ops", "Kernels (ms)", "First (ms)", "Steady (ms)",
               "Busy %",  "MFU",          "MBU",        "Verdict"};
  for (const auto& s : r.stages) {
    const bool other = s.other_threads.ops > 0;
    t.rows.push_back({std::string(static_cast<size_t>(s.depth) * 2, ' ') + s.display_name, s.instances, Ms(s.range_ns),
                      Ms(s.proj_ns), fmt::format("{}{}", s.ops, other ? "*" : ""), Ms(s.kernel_ns),
                      Ms(s.steady.wall.first), Ms(s.steady.median_wall_ns), Pct(s.gpu_busy_pct), Util(s.mfu.mfu_pct),
                      Util(s.mfu.mbu_pct), Verdict(s)});
  }
  return t;
}

// What a stage's GPU ops hold from other threads: "backward: 2591 of 2597 GPU operations
// (35.21 ms of kernels) by pt_autograd_0 (tid 1162), launched while it was open".
std::string OtherThreadsLine(const StagePart& s) {
  const OtherThreadsPart& o = s.other_threads;
  if (o.ops <= 0) return "";
  std::string who;
  for (const auto& t : o.threads) {
    who += fmt::format("{}{} (tid {}): {} ops, {} ms", who.empty() ? "" : "; ", t.name.empty() ? "thread" : t.name,
                       t.global_tid & 0xFFFFFF, t.ops, Ms(t.kernel_ns));
  }
  return fmt::format("{} of {} GPU operations were launched by other threads while it was open: {}", o.ops, s.ops, who);
}

// "forward: the backward pass of its ops launched 2582 GPU operations (23.54 ms of kernels);
// most: aten::mm 12.10 ms, ..."
std::string BackwardLine(const StagePart& s) {
  if (!s.backward_of_forward) return "";
  const BackwardPart& b = *s.backward_of_forward;
  std::string most;
  int shown = 0;
  for (const auto& op : b.by_forward_op) {
    if (++shown > 3) break;
    most += fmt::format("{}{} {} ms", most.empty() ? "" : ", ", op.op, Ms(op.kernel_ns));
  }
  return fmt::format(
      "the backward pass of its forward ops launched {} GPU operations ({} ms of kernels), tied by PyTorch's autograd "
      "sequence numbers; most: {}",
      b.ops, Ms(b.kernel_ns), most);
}

// "measured 12.3% (ncu, 94.1% of compute kernel time), 6N 10.1% of Tensor BF16 989.4 TFLOP/s (...)"
std::string MfuLine(const analysis::StageMfu& m) {
  if (m.lines.empty()) return "";
  std::string out;
  for (const auto& l : m.lines) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", l.name, Util(l.mfu_pct));
    if (l.name == "measured (ncu)") out += fmt::format(" ({} of compute kernel time)", Pct(m.coverage_pct));
  }
  if (m.peak) {
    out += fmt::format(" of the {} peak {:.1f} TFLOP/s ({}", m.peak->precision, m.peak->flops_per_s / 1e12,
                       m.peak->source);
    if (m.peak->clock_hz) out += fmt::format(", {:.2f} GHz", *m.peak->clock_hz / 1e9);
    out += ")";
  }
  return out;
}

Table KernelsTable(const RunReport& r, size_t name_width) {
  Table t;
  // With a critical path, the kernels come by their time on it (# keeps their place by GPU time).
  t.title = r.critical_path ? "Top kernels by time on the critical path (GPU time by nsys)"
                            : "Top kernels by GPU time (nsys)";
  t.columns = {"#",       "Time %", "Time (ms)", "Launches", "On path", "2x saves (ms)", "Kernel",    "Family",
               "Library", "Class",  "SM %",      "DRAM %",   "L1 hit",  "L2 hit",        "Occupancy", "Top stalls"};
  for (const auto& k : r.top_kernels) {
    const KernelVerdict none;
    const KernelVerdict& v = k.verdict ? *k.verdict : none;
    t.rows.push_back({k.rank, SharePct(k.share_pct), Ms(k.total_ns), k.launches, Pct(k.path_pct), Worth2xText(k),
                      Short(k.short_name, name_width), k.family, k.library, k.verdict ? v.bottleneck : "-",
                      Given(v.sm_pct), Given(v.dram_pct), Given(v.l1_hit_pct), Given(v.l2_hit_pct),
                      Given(v.achieved_occupancy_pct), TopStallsText(v)});
  }
  return t;
}

Table MixTable(const RunReport& r) {
  Table t;
  t.title = "Bottleneck mix by GPU time";
  t.columns = {"Class", "Time %", "Time (ms)", "Kernels"};
  for (const auto& m : r.bottleneck_mix) {
    t.rows.push_back({m.bottleneck, Pct(m.share_pct), Ms(m.total_ns), m.kernels});
  }
  return t;
}

std::string Header(const RunReport& r) {
  const store::Manifest& m = r.run.manifest;
  std::string what = "run " + std::to_string(r.run.id);
  std::string details;
  for (const auto* k : {&m.label, &m.model, &m.dtype}) {
    if (*k) details += (details.empty() ? "" : ", ") + **k;
  }
  if (m.batch) details += (details.empty() ? "" : ", ") + fmt::format("batch {}", static_cast<double>(*m.batch));
  if (!details.empty()) what += " (" + details + ")";
  if (r.run.rank) {
    what += fmt::format(", rank {} (process {}, GPU {})", r.run.rank->rank, r.run.rank->pid, r.run.rank->device);
  }
  if (m.gpu) what += " on " + *m.gpu;
  if (r.run.source) what += ", from a " + *r.run.source;
  return what;
}

// The run's phases and its loop: tables, how the loop was found, its MFU and findings.
void WriteIterationsSummary(const RunReport& r, std::ostream& out) {
  if (!r.phases.empty()) {
    out << "\n";
    WriteText(PhasesTable(r), out);
  }
  if (!r.iterations) return;
  const IterationPart& p = *r.iterations;
  out << "\n";
  WriteText(IterationsTable(p, 12), out);
  out << "  " << IterationsSummary(p) << "\n";
  if (p.note) out << "  note: " << *p.note << "\n";
  if (const std::string mfu = MfuLine(p.mfu); !mfu.empty()) out << "  steady iterations MFU: " << mfu << "\n";
  if (p.gpu_metrics) out << "  steady iterations " << SampledLine(*p.gpu_metrics) << "\n";
  for (const auto& n : p.mfu.notes) out << "  note: " << n << "\n";
  for (const auto& f : p.findings) {
    out << fmt::format("  steady iterations: {} ({:.1f}%); fix: {}\n", f.title, f.size, f.fix);
    if (f.worth) out << "    worth: " << WorthText(f) << "\n";
  }
}

}  // namespace

std::string MarkdownText(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '|': out += "\\|"; break;
      case '\n': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

void WriteReportSummary(const RunReport& report, std::ostream& out) {
  const RunReport r = ForDisplay(report);
  const SummaryPart& s = r.summary;
  out << "kscope report: " << Header(r) << "\n";
  if (r.incomplete) out << *r.incomplete << "\n";
  out << fmt::format(
      "wall {:.3f} s, GPU busy {:.1f}% ({} kernels: {} ms; {} copies and sets: {} ms); {} launches "
      "profiled by ncu\n",
      static_cast<double>(s.wall_ns) / 1e9, s.gpu_busy_pct, s.kernels, Ms(s.kernel_ns), s.memops, Ms(s.memop_ns),
      s.profiled_launches);
  for (const auto& line : HeadlineLines(r)) out << line << "\n";
  for (const auto& n : r.notes) out << "note: " << n << "\n";
  WriteIterationsSummary(r, out);
  out << "\nFindings (whole run)\n";
  if (r.timeline.diagnosis.findings.empty()) out << "  none: no idle, launch-bound or copy time past its threshold\n";
  for (const auto& f : r.timeline.diagnosis.findings) {
    out << fmt::format("  - {} ({:.1f}% of wall time)\n    fix: {}\n", f.title, f.size, f.fix);
    if (f.worth) out << "    worth: " << WorthText(f) << "\n";
  }
  out << "\n";
  if (r.stages.empty()) {
    out << "Stages: none (the run has no NVTX ranges" << (r.iterations ? "; its iterations are above)\n" : ")\n");
  } else {
    WriteText(StagesTable(r), out);
  }
  for (const auto& st : r.stages) {
    if (const std::string other = OtherThreadsLine(st); !other.empty()) {
      out << fmt::format("  * {}: {}\n", st.display_name, other);
    }
    if (const std::string backward = BackwardLine(st); !backward.empty()) {
      out << fmt::format("  {}: {}\n", st.display_name, backward);
    }
  }
  for (const auto& st : r.stages) {
    if (const std::string mfu = MfuLine(st.mfu); !mfu.empty()) {
      out << fmt::format("  {} MFU: {}\n", st.display_name, mfu);
    }
    if (st.gpu_metrics) out << fmt::format("  {} {}\n", st.display_name, SampledLine(*st.gpu_metrics));
  }
  for (const auto& st : r.stages) {
    for (const auto& f : st.findings) {
      out << fmt::format("  {}: {} ({:.1f}%); fix: {}\n", st.display_name, f.title, f.size, f.fix);
      if (f.worth) out << "    worth: " << WorthText(f) << "\n";
    }
  }
  if (!r.ranks.empty()) {
    out << "\n";
    WriteText(RanksTable(r), out);
    out << "\n";
    WriteText(RankStagesTable(r), out);
    out << "\n";
    WriteText(RankKernelsTable(r), out);
    if (r.straggler) {
      out << "  straggler: " << StragglerLine(*r.straggler) << "\n    fix: " << r.straggler->advice << "\n";
      if (!r.straggler->overlap_advice.empty()) out << "  overlap: " << r.straggler->overlap_advice << "\n";
    }
  }
  if (r.critical_path) {
    out << "\n";
    WriteText(CriticalPathTable(*r.critical_path), out);
    if (!r.critical_path->ranks.empty()) {
      out << "\n";
      WriteText(PathRanksTable(*r.critical_path), out);
    }
    if (!r.critical_path->kernels.empty()) {
      out << "\n";
      WriteText(PathKernelsTable(*r.critical_path, 48), out);
    }
  }
  out << "\n";
  WriteText(KernelsTable(r, 48), out);
  if (const std::string off = OffPathText(r); !off.empty()) out << "  " << off << "\n";
  WriteTerminalStalls(r, out);
  out << "\n";
  WriteText(MixTable(r), out);
}

void WriteMarkdownTable(const Table& t, std::ostream& out) {
  out << "| ";
  for (const auto& c : t.columns) out << MarkdownText(c) << " | ";
  out << "\n|";
  for (size_t i = 0; i < t.columns.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& row : t.rows) {
    out << "| ";
    for (const auto& cell : row) out << MarkdownText(CellText(cell)) << " | ";
    out << "\n";
  }
  out << "\n";
}

namespace {

void WriteMarkdownFindings(const std::vector<analysis::Finding>& findings, std::string_view size_suffix,
                           std::ostream& out) {
  for (const auto& f : findings) {
    out << fmt::format("- **{}** ({:.1f}%{}). {} *Fix:* {}", MarkdownText(f.title), f.size, size_suffix,
                       MarkdownText(f.detail), MarkdownText(f.fix));
    if (f.worth) out << " *Worth:* " << MarkdownText(WorthText(f)) << ".";
    out << "\n";
  }
}

// "- 3 instances: range time first ... ms, median ...": the spread of a stage's instances.
void WriteMarkdownInstances(const StagePart& st, std::ostream& out) {
  const analysis::StageSteady& steady = st.steady;
  if (st.instances == 1) {
    out << fmt::format("- 1 instance: range time {} ms, wall time {} ms (to the end of its GPU work), GPU time {} ms\n",
                       Ms(steady.range.first), Ms(steady.wall.first), Ms(steady.gpu.first));
  } else if (st.instances > 1) {
    out << fmt::format(
        "- {} instances: range time first {} ms, median {} ms, min {} ms, max {} ms; GPU time first {} ms, median {} "
        "ms, min {} ms, max {} ms; steady ({} after {} warm-up): median {} ms wall, {} ms GPU\n",
        st.instances, Ms(steady.range.first), Ms(steady.range.median), Ms(steady.range.min), Ms(steady.range.max),
        Ms(steady.gpu.first), Ms(steady.gpu.median), Ms(steady.gpu.min), Ms(steady.gpu.max), steady.steady,
        steady.warmup, Ms(steady.median_wall_ns), Ms(steady.median_gpu_ns));
  }
}

void WriteMarkdownMfu(const analysis::StageMfu& m, std::ostream& out) {
  if (!m.lines.empty()) {
    out << "\n| FLOPs counted as | FLOPs per instance | FLOP/s | MFU | How |\n|---|---|---|---|---|\n";
    for (const auto& l : m.lines) {
      out << fmt::format("| {} | {} | {} | {} | {} |\n", MarkdownText(l.name), Sci(l.flops), Sci(l.flops_per_s),
                         Util(l.mfu_pct), MarkdownText(l.formula));
    }
    out << "\n";
  } else {
    out << "- FLOPs: none measured (no ncu FLOP counters for its kernels) and no model described (model.*)\n";
  }
  out << fmt::format("- DRAM bytes: {}B ({}), {}B/s of {}B/s: MBU {}\n", Sci(m.bytes),
                     m.bytes_source.empty() ? "none" : m.bytes_source, Sci(m.achieved_bytes_per_s),
                     Sci(m.peak_bytes_per_s), Util(m.mbu_pct));
  for (const auto& n : m.notes) out << "- " << MarkdownText(n) << "\n";
}

void WriteMarkdownStage(const StagePart& st, std::ostream& out) {
  out << "### " << MarkdownText(st.display_name) << "\n\n";
  WriteMarkdownFindings(st.findings, "", out);
  if (const std::string other = OtherThreadsLine(st); !other.empty()) out << "- " << MarkdownText(other) << "\n";
  if (const std::string backward = BackwardLine(st); !backward.empty()) {
    out << "- " << MarkdownText(backward) << "\n";
  }
  WriteMarkdownInstances(st, out);
  WriteMarkdownMfu(st.mfu, out);
  if (st.gpu_metrics) out << "- " << MarkdownText(SampledLine(*st.gpu_metrics)) << "\n";
  if (st.top_kernels.empty()) {
    out << "\nNo kernels: nothing the stage's thread launched while it was open ran a kernel.\n\n";
    return;
  }
  out << "\n| Kernel | Launches | Time (ms) | Share | Class |\n|---|---|---|---|---|\n";
  for (const auto& k : st.top_kernels) {
    out << fmt::format("| {} | {} | {} | {} | {} |\n", MarkdownText(k.short_name), k.launches, Ms(k.total_ns),
                       Pct(k.share_pct), OrDash(k.bottleneck));
  }
  out << "\n";
}

void WriteMarkdownRoofline(const RooflinePart& roofline, std::ostream& out) {
  out << "## Roofline\n\n";
  if (roofline.points.empty()) {
    out << "None: no launch of this run was profiled with ncu's FLOP and DRAM metrics (kscope profile, or ncu "
           "results collected with --set roofline or full).\n";
    return;
  }
  out << "| Kernel | Precision | FLOP/byte | FLOP/s | % of roof | Class |\n|---|---|---|---|---|---|\n";
  for (const auto& p : roofline.points) {
    out << fmt::format("| {} | {} | {:.3f} | {} | {:.1f}% | {} |\n", MarkdownText(p.short_name), p.precision,
                       p.intensity, Sci(p.achieved_flops), p.pct_of_roof, p.bottleneck);
  }
}

void WriteMarkdownGaps(const TimelinePart& timeline, std::ostream& out) {
  out << "\n## Largest idle gaps\n\n";
  if (timeline.diagnosis.largest_gaps.empty()) {
    out << "None: the GPU was never idle for as long as timeline.min_gap_us between its operations.\n";
    return;
  }
  out << "| Start (ms) | Length (ms) | Host activity |\n|---|---|---|\n";
  const auto t0 = static_cast<double>(timeline.start_ns);
  for (const auto& g : timeline.diagnosis.largest_gaps) {
    std::string host;
    for (const auto& h : g.host) {
      host += fmt::format("{}{} x{} ({} ms)", host.empty() ? "" : ", ", h.api, h.calls, Ms(h.ns));
    }
    out << fmt::format("| {:.3f} | {} | {} |\n", (static_cast<double>(g.start) - t0) / 1e6, Ms(g.end - g.start),
                       MarkdownText(host.empty() ? "outside CUDA calls" : host));
  }
}

void WriteIterationsMarkdown(const RunReport& r, std::ostream& out) {
  if (!r.phases.empty()) {
    out << "## Phases\n\n";
    WriteMarkdownTable(PhasesTable(r), out);
  }
  if (!r.iterations) return;
  out << "## Iterations\n\n" << MarkdownText(IterationsSummary(*r.iterations)) << ".\n\n";
  if (r.iterations->note) out << "Note: " << MarkdownText(*r.iterations->note) << ".\n\n";
  WriteMarkdownTable(IterationsTable(*r.iterations, 1000), out);
  WriteMarkdownMfu(r.iterations->mfu, out);
  if (r.iterations->gpu_metrics) {
    out << "- steady iterations " << MarkdownText(SampledLine(*r.iterations->gpu_metrics)) << "\n\n";
  }
  WriteMarkdownFindings(r.iterations->findings, " of the steady iterations' time", out);
}

}  // namespace

void WriteReportMarkdown(const RunReport& report, std::ostream& out) {
  const RunReport r = ForDisplay(report);
  const SummaryPart& s = r.summary;
  out << "# kscope report: " << MarkdownText(Header(r)) << "\n\n";
  if (r.incomplete) out << "**" << MarkdownText(*r.incomplete) << "**\n\n";
  if (r.run.manifest.command) out << "Command: `" << *r.run.manifest.command << "`\n\n";
  out << fmt::format(
      "Wall time {:.3f} s; the GPU busy {:.1f}% of it; {} kernel launches ({} ms), {} copies and sets "
      "({} ms); {} launches profiled by ncu.\n\n",
      static_cast<double>(s.wall_ns) / 1e9, s.gpu_busy_pct, s.kernels, Ms(s.kernel_ns), s.memops, Ms(s.memop_ns),
      s.profiled_launches);
  for (const auto& line : HeadlineLines(r)) out << MarkdownText(line) << "\n\n";
  for (const auto& n : r.notes) out << "> " << MarkdownText(n) << "\n\n";
  WriteIterationsMarkdown(r, out);
  out << "## Findings\n\n";
  if (r.timeline.diagnosis.findings.empty()) out << "None: no idle, launch-bound or copy time past its threshold.\n";
  WriteMarkdownFindings(r.timeline.diagnosis.findings, " of wall time", out);
  out << "\n## Stages\n\n";
  if (r.stages.empty()) {
    out << "None: the run has no NVTX ranges" << (r.iterations ? "; its iterations are above.\n\n" : ".\n\n");
  } else {
    WriteMarkdownTable(StagesTable(r), out);
  }
  for (const auto& st : r.stages) WriteMarkdownStage(st, out);
  if (!r.ranks.empty()) {
    out << "## Ranks\n\n";
    WriteMarkdownTable(RanksTable(r), out);
    out << "### Stages per rank\n\n";
    WriteMarkdownTable(RankStagesTable(r), out);
    out << "### Top kernels per rank\n\n";
    WriteMarkdownTable(RankKernelsTable(r), out);
    if (r.straggler) {
      out << "Straggler: " << MarkdownText(StragglerLine(*r.straggler))
          << ".\n\nFix: " << MarkdownText(r.straggler->advice) << ".\n\n";
      if (!r.straggler->overlap_advice.empty())
        out << "Overlap: " << MarkdownText(r.straggler->overlap_advice) << ".\n\n";
    }
  }
  if (r.critical_path) {
    out << "## Critical path\n\n";
    const Table path = CriticalPathTable(*r.critical_path);
    out << MarkdownText(path.title) << ".\n\n";
    WriteMarkdownTable(path, out);
    if (!r.critical_path->ranks.empty()) WriteMarkdownTable(PathRanksTable(*r.critical_path), out);
    if (!r.critical_path->kernels.empty()) WriteMarkdownTable(PathKernelsTable(*r.critical_path, 1000), out);
  }
  out << "## Top kernels\n\n";
  if (r.top_kernels.empty()) {
    out << "None: the run has no kernel launches.\n\n";
  } else {
    WriteMarkdownTable(KernelsTable(r, 1000), out);
    if (const std::string off = OffPathText(r); !off.empty()) out << MarkdownText(off) << ".\n\n";
  }
  out << "## Bottleneck mix\n\n";
  if (r.bottleneck_mix.empty()) {
    out << "None: the run has no kernel time.\n\n";
  } else {
    WriteMarkdownTable(MixTable(r), out);
  }
  WriteMarkdownEvidence(r, out);
  WriteMarkdownRoofline(r.roofline, out);
  WriteMarkdownGaps(r.timeline, out);
}

}  // namespace kscope::report
