#include "report/report_text.h"

#include <fmt/format.h>

#include <ostream>

#include "report/html_escape.h"
#include "report/json_fields.h"
#include "report/nsys_numbers.h"
#include "report/table.h"

namespace kscope::report {

using nlohmann::json;

namespace {

double Num(const json& v) { return v.is_number() ? v.get<double>() : 0.0; }
std::string Str(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

std::string Ms(const json& ns) { return ns.is_number() ? fmt::format("{:.3f}", Num(ns) / 1e6) : ""; }
std::string Pct(const json& v, int decimals = 1) {
  return v.is_number() ? fmt::format("{:.{}f}%", Num(v), decimals) : "-";
}
// A utilization, small ones with three significant digits (decode's MFU is 0.000321%).
std::string Util(const json& v) {
  if (!v.is_number()) return "-";
  const double x = Num(v);
  return x >= 1 || x == 0 ? fmt::format("{:.1f}%", x) : fmt::format("{:.3g}%", x);
}
std::string Sci(const json& v) {
  if (!v.is_number()) return "-";
  const double x = Num(v);
  if (x >= 1e12) return fmt::format("{:.2f} T", x / 1e12);
  if (x >= 1e9) return fmt::format("{:.2f} G", x / 1e9);
  if (x >= 1e6) return fmt::format("{:.2f} M", x / 1e6);
  return fmt::format("{:.0f}", x);
}
// A kernel's share of kernel time rounded as nsys's cuda_gpu_kern_sum rounds its Time (%).
std::string SharePct(const json& v) { return v.is_number() ? Round1(Num(v)).text + "%" : "-"; }
std::string Short(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; }

// The stage's main verdict: its largest finding's title, else what its numbers say.
std::string Verdict(const json& stage) {
  const auto& f = Field(stage, "findings");
  if (f.is_array() && !f.empty()) return Str(Field(f[0], "title"));
  return fmt::format("GPU busy {:.1f}%", Num(Field(stage, "gpu_busy_pct")));
}

std::string StageName(const json& s) {
  return Field(s, "display_name").is_string() ? Str(Field(s, "display_name")) : Str(Field(s, "name"));
}

Table StagesTable(const json& r) {
  Table t;
  t.title = "Stages (NVTX ranges; GPU work launched inside, by every thread of the process)";
  t.columns = {"Stage",   "Instances",    "Range (ms)", "Projected (ms)",
               "GPU ops", "Kernels (ms)", "First (ms)", "Steady (ms)",
               "Busy %",  "MFU",          "MBU",        "Verdict"};
  for (const auto& s : Field(r, "stages")) {
    const auto& m = Field(s, "mfu");
    const auto& steady = Field(s, "steady");
    const bool other = Num(Field(Field(s, "other_threads"), "ops")) > 0;
    t.rows.push_back(
        {std::string(static_cast<size_t>(Num(Field(s, "depth"))) * 2, ' ') + StageName(s),
         static_cast<int64_t>(Num(Field(s, "instances"))), Ms(Field(s, "range_ns")), Ms(Field(s, "proj_ns")),
         fmt::format("{}{}", static_cast<int64_t>(Num(Field(s, "ops"))), other ? "*" : ""), Ms(Field(s, "kernel_ns")),
         Ms(Field(Field(steady, "wall"), "first_ns")), Ms(Field(steady, "median_wall_ns")),
         Pct(Field(s, "gpu_busy_pct")), Util(Field(m, "mfu_pct")), Util(Field(m, "mbu_pct")), Verdict(s)});
  }
  return t;
}

// What a stage's GPU ops hold from other threads: "backward: 2591 of 2597 GPU operations
// (35.21 ms of kernels) by pt_autograd_0 (tid 1162), launched while it was open".
std::string OtherThreadsLine(const json& s) {
  const auto& o = Field(s, "other_threads");
  if (Num(Field(o, "ops")) <= 0) return "";
  std::string who;
  for (const auto& t : Field(o, "threads")) {
    const std::string name = Str(Field(t, "name"));
    who += fmt::format("{}{} (tid {}): {} ops, {} ms", who.empty() ? "" : "; ", name.empty() ? "thread" : name,
                       static_cast<int64_t>(Num(Field(t, "tid"))), static_cast<int64_t>(Num(Field(t, "ops"))),
                       Ms(Field(t, "kernel_ns")));
  }
  return fmt::format("{} of {} GPU operations were launched by other threads while it was open: {}",
                     static_cast<int64_t>(Num(Field(o, "ops"))), static_cast<int64_t>(Num(Field(s, "ops"))), who);
}

// "forward: the backward pass of its ops launched 2582 GPU operations (23.54 ms of kernels);
// most: aten::mm 12.10 ms, ..."
std::string BackwardLine(const json& s) {
  const auto& b = Field(s, "backward_of_forward");
  if (!b.is_object()) return "";
  std::string most;
  int shown = 0;
  for (const auto& op : Field(b, "by_forward_op")) {
    if (++shown > 3) break;
    most += fmt::format("{}{} {} ms", most.empty() ? "" : ", ", Str(Field(op, "op")), Ms(Field(op, "kernel_ns")));
  }
  return fmt::format(
      "the backward pass of its forward ops launched {} GPU operations ({} ms of kernels), tied by PyTorch's autograd "
      "sequence numbers; most: {}",
      static_cast<int64_t>(Num(Field(b, "ops"))), Ms(Field(b, "kernel_ns")), most);
}

// "measured 12.3% (ncu, 94.1% of kernel time), 6N 10.1% of Tensor BF16 989.4 TFLOP/s (...)"
std::string MfuLine(const json& m) {
  const auto& lines = Field(m, "lines");
  if (!lines.is_array() || lines.empty()) return "";
  std::string out;
  for (const auto& l : lines) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", Str(Field(l, "name")), Util(Field(l, "mfu_pct")));
    if (Str(Field(l, "name")) == "measured (ncu)")
      out += fmt::format(" ({} of kernel time)", Pct(Field(m, "coverage_pct")));
  }
  const auto& peak = Field(m, "peak");
  if (peak.is_object()) {
    out += fmt::format(" of the {} peak {:.1f} TFLOP/s ({}", Str(Field(peak, "precision")),
                       Num(Field(peak, "flops_per_s")) / 1e12, Str(Field(peak, "source")));
    if (Field(peak, "clock_hz").is_number()) out += fmt::format(", {:.2f} GHz", Num(Field(peak, "clock_hz")) / 1e9);
    out += ")";
  }
  return out;
}

Table KernelsTable(const json& r, size_t name_width) {
  Table t;
  t.title = "Top kernels by GPU time (nsys)";
  t.columns = {"#",     "Time %", "Time (ms)", "Launches", "Kernel", "Family",    "Library",
               "Class", "SM %",   "DRAM %",    "L1 hit",   "L2 hit", "Occupancy", "Top stall"};
  for (const auto& k : Field(r, "top_kernels")) {
    t.rows.push_back({static_cast<int64_t>(Num(Field(k, "rank"))), SharePct(Field(k, "share_pct")),
                      Ms(Field(k, "total_ns")), static_cast<int64_t>(Num(Field(k, "launches"))),
                      Short(Str(Field(k, "base")), name_width), Str(Field(k, "family")), Str(Field(k, "library")),
                      Field(k, "bottleneck").is_string() ? Str(Field(k, "bottleneck")) : "-", Pct(Field(k, "sm_pct")),
                      Pct(Field(k, "dram_pct")), Pct(Field(k, "l1_hit_pct")), Pct(Field(k, "l2_hit_pct")),
                      Pct(Field(k, "achieved_occupancy_pct")),
                      Field(k, "top_stall").is_string() ? Str(Field(k, "top_stall")) : "-"});
  }
  return t;
}

Table MixTable(const json& r) {
  Table t;
  t.title = "Bottleneck mix by GPU time";
  t.columns = {"Class", "Time %", "Time (ms)", "Kernels"};
  for (const auto& m : Field(r, "bottleneck_mix")) {
    t.rows.push_back({Str(Field(m, "bottleneck")), Pct(Field(m, "share_pct")), Ms(Field(m, "total_ns")),
                      static_cast<int64_t>(Num(Field(m, "kernels")))});
  }
  return t;
}

std::string Header(const json& r) {
  const auto& run = Field(r, "run");
  std::string what = "run " + std::to_string(static_cast<int64_t>(Num(Field(run, "id"))));
  std::string details;
  for (const char* k : {"label", "model", "dtype"}) {
    if (Field(run, k).is_string()) details += (details.empty() ? "" : ", ") + Str(Field(run, k));
  }
  if (Field(run, "batch").is_number())
    details += (details.empty() ? "" : ", ") + fmt::format("batch {}", Num(Field(run, "batch")));
  if (!details.empty()) what += " (" + details + ")";
  if (Field(run, "gpu").is_string()) what += " on " + Str(Field(run, "gpu"));
  return what;
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

void WriteReportSummary(const json& report, std::ostream& out) {
  const json r = ForDisplay(report);
  const auto& s = Field(r, "summary");
  out << "kscope report: " << Header(r) << "\n";
  out << fmt::format(
      "wall {:.3f} s, GPU busy {:.1f}% ({} kernels: {} ms; {} copies and sets: {} ms); {} launches "
      "profiled by ncu\n",
      Num(Field(s, "wall_ns")) / 1e9, Num(Field(s, "gpu_busy_pct")), static_cast<int64_t>(Num(Field(s, "kernels"))),
      Ms(Field(s, "kernel_ns")), static_cast<int64_t>(Num(Field(s, "memops"))), Ms(Field(s, "memop_ns")),
      static_cast<int64_t>(Num(Field(s, "profiled_launches"))));
  for (const auto& n : Field(r, "notes")) out << "note: " << Str(n) << "\n";
  out << "\nFindings (whole run)\n";
  for (const auto& f : Field(Field(r, "timeline"), "findings")) {
    out << fmt::format("  - {} ({:.1f}% of wall time)\n    fix: {}\n", Str(Field(f, "title")), Num(Field(f, "size")),
                       Str(Field(f, "fix")));
  }
  out << "\n";
  WriteText(StagesTable(r), out);
  for (const auto& st : Field(r, "stages")) {
    if (const std::string other = OtherThreadsLine(st); !other.empty()) {
      out << fmt::format("  * {}: {}\n", StageName(st), other);
    }
    if (const std::string backward = BackwardLine(st); !backward.empty()) {
      out << fmt::format("  {}: {}\n", StageName(st), backward);
    }
  }
  for (const auto& st : Field(r, "stages")) {
    if (const std::string mfu = MfuLine(Field(st, "mfu")); !mfu.empty()) {
      out << fmt::format("  {} MFU: {}\n", StageName(st), mfu);
    }
  }
  for (const auto& st : Field(r, "stages")) {
    for (const auto& f : Field(st, "findings")) {
      out << fmt::format("  {}: {} ({:.1f}%); fix: {}\n", StageName(st), Str(Field(f, "title")), Num(Field(f, "size")),
                         Str(Field(f, "fix")));
    }
  }
  out << "\n";
  WriteText(KernelsTable(r, 48), out);
  out << "\n";
  WriteText(MixTable(r), out);
}

void WriteReportMarkdown(const json& report, std::ostream& out) {
  const json r = ForDisplay(report);
  auto table = [&](const Table& t) {
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
  };
  const auto& s = Field(r, "summary");
  out << "# kscope report: " << MarkdownText(Header(r)) << "\n\n";
  if (Field(Field(r, "run"), "command").is_string())
    out << "Command: `" << Str(Field(Field(r, "run"), "command")) << "`\n\n";
  out << fmt::format(
      "Wall time {:.3f} s; the GPU busy {:.1f}% of it; {} kernel launches ({} ms), {} copies and sets "
      "({} ms); {} launches profiled by ncu.\n\n",
      Num(Field(s, "wall_ns")) / 1e9, Num(Field(s, "gpu_busy_pct")), static_cast<int64_t>(Num(Field(s, "kernels"))),
      Ms(Field(s, "kernel_ns")), static_cast<int64_t>(Num(Field(s, "memops"))), Ms(Field(s, "memop_ns")),
      static_cast<int64_t>(Num(Field(s, "profiled_launches"))));
  for (const auto& n : Field(r, "notes")) out << "> " << MarkdownText(Str(n)) << "\n\n";
  out << "## Findings\n\n";
  for (const auto& f : Field(Field(r, "timeline"), "findings")) {
    out << fmt::format("- **{}** ({:.1f}% of wall time). {} *Fix:* {}\n", MarkdownText(Str(Field(f, "title"))),
                       Num(Field(f, "size")), MarkdownText(Str(Field(f, "detail"))),
                       MarkdownText(Str(Field(f, "fix"))));
  }
  out << "\n## Stages\n\n";
  table(StagesTable(r));
  for (const auto& st : Field(r, "stages")) {
    const auto& m = Field(st, "mfu");
    const auto& steady = Field(st, "steady");
    out << "### " << MarkdownText(StageName(st)) << "\n\n";
    for (const auto& f : Field(st, "findings")) {
      out << fmt::format("- **{}** ({:.1f}%). {} *Fix:* {}\n", MarkdownText(Str(Field(f, "title"))),
                         Num(Field(f, "size")), MarkdownText(Str(Field(f, "detail"))),
                         MarkdownText(Str(Field(f, "fix"))));
    }
    if (const std::string other = OtherThreadsLine(st); !other.empty()) out << "- " << MarkdownText(other) << "\n";
    if (const std::string backward = BackwardLine(st); !backward.empty()) {
      out << "- " << MarkdownText(backward) << "\n";
    }
    const auto instances = static_cast<int64_t>(Num(Field(st, "instances")));
    if (instances == 1) {
      out << fmt::format(
          "- 1 instance: range time {} ms, wall time {} ms (to the end of its GPU work), GPU time {} ms\n",
          Ms(Field(Field(steady, "range"), "first_ns")), Ms(Field(Field(steady, "wall"), "first_ns")),
          Ms(Field(Field(steady, "gpu"), "first_ns")));
    } else if (instances > 1) {
      out << fmt::format(
          "- {} instances: range time first {} ms, median {} ms, min {} ms, max {} ms; GPU time first {} ms, median {} "
          "ms, min {} ms, max {} ms; steady ({} after {} warm-up): median {} ms wall, {} ms GPU\n",
          instances, Ms(Field(Field(steady, "range"), "first_ns")), Ms(Field(Field(steady, "range"), "median_ns")),
          Ms(Field(Field(steady, "range"), "min_ns")), Ms(Field(Field(steady, "range"), "max_ns")),
          Ms(Field(Field(steady, "gpu"), "first_ns")), Ms(Field(Field(steady, "gpu"), "median_ns")),
          Ms(Field(Field(steady, "gpu"), "min_ns")), Ms(Field(Field(steady, "gpu"), "max_ns")),
          static_cast<int64_t>(Num(Field(steady, "instances"))), static_cast<int64_t>(Num(Field(steady, "warmup"))),
          Ms(Field(steady, "median_wall_ns")), Ms(Field(steady, "median_gpu_ns")));
    }
    if (Field(m, "lines").is_array() && !Field(m, "lines").empty()) {
      out << "\n| FLOPs counted as | FLOPs per instance | FLOP/s | MFU | How |\n|---|---|---|---|---|\n";
      for (const auto& l : Field(m, "lines")) {
        out << fmt::format("| {} | {} | {} | {} | {} |\n", MarkdownText(Str(Field(l, "name"))), Sci(Field(l, "flops")),
                           Sci(Field(l, "flops_per_s")), Util(Field(l, "mfu_pct")),
                           MarkdownText(Str(Field(l, "formula"))));
      }
      out << "\n";
    } else {
      out << "- FLOPs: none measured (no ncu FLOP counters for its kernels) and no model described (model.*)\n";
    }
    out << fmt::format("- DRAM bytes: {}B ({}), {}B/s of {}B/s: MBU {}\n", Sci(Field(m, "bytes")),
                       Str(Field(m, "bytes_source")).empty() ? "none" : Str(Field(m, "bytes_source")),
                       Sci(Field(m, "achieved_bytes_per_s")), Sci(Field(m, "peak_bytes_per_s")),
                       Util(Field(m, "mbu_pct")));
    for (const auto& n : Field(m, "notes")) out << "- " << MarkdownText(Str(n)) << "\n";
    out << "\n| Kernel | Launches | Time (ms) | Share | Class |\n|---|---|---|---|---|\n";
    for (const auto& k : Field(st, "top_kernels")) {
      out << fmt::format("| {} | {} | {} | {} | {} |\n", MarkdownText(Str(Field(k, "name"))),
                         static_cast<int64_t>(Num(Field(k, "launches"))), Ms(Field(k, "total_ns")),
                         Pct(Field(k, "share_pct")),
                         Field(k, "bottleneck").is_string() ? Str(Field(k, "bottleneck")) : "-");
    }
    out << "\n";
  }
  out << "## Top kernels\n\n";
  table(KernelsTable(r, 1000));
  out << "## Bottleneck mix\n\n";
  table(MixTable(r));
  out << "## Roofline\n\n| Kernel | Precision | FLOP/byte | FLOP/s | % of roof | Class |\n|---|---|---|---|---|---|\n";
  for (const auto& p : Field(Field(r, "roofline"), "points")) {
    out << fmt::format("| {} | {} | {:.3f} | {} | {:.1f}% | {} |\n", MarkdownText(Str(Field(p, "kernel"))),
                       Str(Field(p, "precision")), Num(Field(p, "intensity")), Sci(Field(p, "achieved_flops")),
                       Num(Field(p, "pct_of_roof")), Str(Field(p, "bottleneck")));
  }
  out << "\n## Largest idle gaps\n\n| Start (ms) | Length (ms) | Host activity |\n|---|---|---|\n";
  const double t0 = Num(Field(Field(r, "timeline"), "start_ns"));
  for (const auto& g : Field(Field(r, "timeline"), "largest_gaps")) {
    std::string host;
    for (const auto& h : Field(g, "host")) {
      host += fmt::format("{}{} x{} ({} ms)", host.empty() ? "" : ", ", Str(Field(h, "api")),
                          static_cast<int64_t>(Num(Field(h, "calls"))), Ms(Field(h, "ns")));
    }
    out << fmt::format("| {:.3f} | {} | {} |\n", (Num(Field(g, "start_ns")) - t0) / 1e6, Ms(Field(g, "duration_ns")),
                       MarkdownText(host.empty() ? "outside CUDA calls" : host));
  }
}

}  // namespace kscope::report
