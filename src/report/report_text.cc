#include "report/report_text.h"

#include <fmt/format.h>

#include <ostream>

#include "report/table.h"

namespace kscope::report {

using nlohmann::json;

namespace {

// A member of a report object, or null when absent (a report may lack parts).
const json& G(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

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
std::string Short(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; }

// The stage's main verdict: its largest finding's title, else what its numbers say.
std::string Verdict(const json& stage) {
  const auto& f = G(stage, "findings");
  if (f.is_array() && !f.empty()) return Str(G(f[0], "title"));
  return fmt::format("GPU busy {:.1f}%", Num(G(stage, "gpu_busy_pct")));
}

Table StagesTable(const json& r) {
  Table t;
  t.title = "Stages (NVTX ranges projected onto the GPU)";
  t.columns = {"Stage",   "Instances", "Range (ms)", "Projected (ms)", "GPU ops", "Kernels (ms)",
               "Busy %",  "FLOPs",     "MFU",        "MBU",            "Verdict"};
  for (const auto& s : G(r, "stages")) {
    const auto& m = G(s, "mfu");
    std::string flops = G(m, "flops").is_number() ? Sci(G(m, "flops")) + " (" + Str(G(m, "flops_source")) + ")" : "-";
    t.rows.push_back({std::string(static_cast<size_t>(Num(G(s, "depth"))) * 2, ' ') + Str(G(s, "name")),
                      static_cast<int64_t>(Num(G(s, "instances"))), Ms(G(s, "range_ns")), Ms(G(s, "proj_ns")),
                      static_cast<int64_t>(Num(G(s, "gpu_ops"))), Ms(G(s, "kernel_ns")), Pct(G(s, "gpu_busy_pct")), flops,
                      Util(G(m, "mfu_pct")), Util(G(m, "mbu_pct")), Verdict(s)});
  }
  return t;
}

Table KernelsTable(const json& r, size_t name_width) {
  Table t;
  t.title = "Top kernels by GPU time (nsys)";
  t.columns = {"#", "Time %", "Time (ms)", "Launches", "Kernel", "Family", "Library", "Class", "Occupancy", "Top stall"};
  for (const auto& k : G(r, "top_kernels")) {
    t.rows.push_back({static_cast<int64_t>(Num(G(k, "rank"))), Pct(G(k, "share_pct")), Ms(G(k, "total_ns")),
                      static_cast<int64_t>(Num(G(k, "launches"))), Short(Str(G(k, "base")), name_width), Str(G(k, "family")),
                      Str(G(k, "library")), G(k, "bottleneck").is_string() ? Str(G(k, "bottleneck")) : "-",
                      Pct(G(k, "achieved_occupancy_pct")), G(k, "top_stall").is_string() ? Str(G(k, "top_stall")) : "-"});
  }
  return t;
}

Table MixTable(const json& r) {
  Table t;
  t.title = "Bottleneck mix by GPU time";
  t.columns = {"Class", "Time %", "Time (ms)", "Kernels"};
  for (const auto& m : G(r, "bottleneck_mix")) {
    t.rows.push_back({Str(G(m, "bottleneck")), Pct(G(m, "share_pct")), Ms(G(m, "total_ns")), static_cast<int64_t>(Num(G(m, "kernels")))});
  }
  return t;
}

std::string Header(const json& r) {
  const auto& run = G(r, "run");
  std::string what = "run " + std::to_string(static_cast<int64_t>(Num(G(run, "id"))));
  std::string details;
  for (const char* k : {"label", "model", "dtype"}) {
    if (run[k].is_string()) details += (details.empty() ? "" : ", ") + Str(run[k]);
  }
  if (G(run, "batch").is_number()) details += (details.empty() ? "" : ", ") + fmt::format("batch {}", Num(G(run, "batch")));
  if (!details.empty()) what += " (" + details + ")";
  if (G(run, "gpu").is_string()) what += " on " + Str(G(run, "gpu"));
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

void WriteReportSummary(const json& r, std::ostream& out) {
  const auto& s = G(r, "summary");
  out << "kscope report: " << Header(r) << "\n";
  out << fmt::format("wall {:.3f} s, GPU busy {:.1f}% ({} kernels: {} ms; {} copies and sets: {} ms); {} launches "
                     "profiled by ncu\n",
                     Num(G(s, "wall_ns")) / 1e9, Num(G(s, "gpu_busy_pct")), static_cast<int64_t>(Num(G(s, "kernels"))),
                     Ms(G(s, "kernel_ns")), static_cast<int64_t>(Num(G(s, "memops"))), Ms(G(s, "memop_ns")),
                     static_cast<int64_t>(Num(G(s, "profiled_launches"))));
  for (const auto& n : G(r, "notes")) out << "note: " << Str(n) << "\n";
  out << "\nFindings (whole run)\n";
  for (const auto& f : G(G(r, "timeline"), "findings")) {
    out << fmt::format("  - {} ({:.1f}% of wall time)\n    fix: {}\n", Str(G(f, "title")), Num(G(f, "size")), Str(G(f, "fix")));
  }
  out << "\n";
  WriteText(StagesTable(r), out);
  for (const auto& st : G(r, "stages")) {
    for (const auto& f : G(st, "findings")) {
      out << fmt::format("  {}: {} ({:.1f}%); fix: {}\n", Str(G(st, "name")), Str(G(f, "title")), Num(G(f, "size")), Str(G(f, "fix")));
    }
  }
  out << "\n";
  WriteText(KernelsTable(r, 48), out);
  out << "\n";
  WriteText(MixTable(r), out);
}

void WriteReportMarkdown(const json& r, std::ostream& out) {
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
  const auto& s = G(r, "summary");
  out << "# kscope report: " << MarkdownText(Header(r)) << "\n\n";
  if (G(G(r, "run"), "command").is_string()) out << "Command: `" << Str(G(G(r, "run"), "command")) << "`\n\n";
  out << fmt::format("Wall time {:.3f} s; the GPU busy {:.1f}% of it; {} kernel launches ({} ms), {} copies and sets "
                     "({} ms); {} launches profiled by ncu.\n\n",
                     Num(G(s, "wall_ns")) / 1e9, Num(G(s, "gpu_busy_pct")), static_cast<int64_t>(Num(G(s, "kernels"))),
                     Ms(G(s, "kernel_ns")), static_cast<int64_t>(Num(G(s, "memops"))), Ms(G(s, "memop_ns")),
                     static_cast<int64_t>(Num(G(s, "profiled_launches"))));
  for (const auto& n : G(r, "notes")) out << "> " << MarkdownText(Str(n)) << "\n\n";
  out << "## Findings\n\n";
  for (const auto& f : G(G(r, "timeline"), "findings")) {
    out << fmt::format("- **{}** ({:.1f}% of wall time). {} *Fix:* {}\n", MarkdownText(Str(G(f, "title"))), Num(G(f, "size")),
                       MarkdownText(Str(G(f, "detail"))), MarkdownText(Str(G(f, "fix"))));
  }
  out << "\n## Stages\n\n";
  table(StagesTable(r));
  for (const auto& st : G(r, "stages")) {
    const auto& m = G(st, "mfu");
    out << "### " << MarkdownText(Str(G(st, "name"))) << "\n\n";
    for (const auto& f : G(st, "findings")) {
      out << fmt::format("- **{}** ({:.1f}%). {} *Fix:* {}\n", MarkdownText(Str(G(f, "title"))), Num(G(f, "size")),
                         MarkdownText(Str(G(f, "detail"))), MarkdownText(Str(G(f, "fix"))));
    }
    out << fmt::format("- FLOPs: {} ({}), achieved {}FLOP/s of a {} peak of {}FLOP/s ({}): MFU {}, over kernel time {}\n",
                       Sci(G(m, "flops")), Str(G(m, "flops_source")).empty() ? "none" : Str(G(m, "flops_source")),
                       Sci(G(m, "achieved_flops_per_s")), Str(G(m, "precision")).empty() ? "-" : Str(G(m, "precision")),
                       Sci(G(m, "peak_flops_per_s")), Str(G(m, "peak_source")).empty() ? "-" : Str(G(m, "peak_source")),
                       Util(G(m, "mfu_pct")), Util(G(m, "kernel_mfu_pct")));
    out << fmt::format("- DRAM bytes: {}B ({}), {}B/s of {}B/s: MBU {}\n", Sci(G(m, "bytes")),
                       Str(G(m, "bytes_source")).empty() ? "none" : Str(G(m, "bytes_source")), Sci(G(m, "achieved_bytes_per_s")),
                       Sci(G(m, "peak_bytes_per_s")), Util(G(m, "mbu_pct")));
    for (const auto& n : G(m, "notes")) out << "- " << MarkdownText(Str(n)) << "\n";
    out << "\n| Kernel | Launches | Time (ms) | Share | Class |\n|---|---|---|---|---|\n";
    for (const auto& k : G(st, "top_kernels")) {
      out << fmt::format("| {} | {} | {} | {} | {} |\n", MarkdownText(Str(G(k, "name"))),
                         static_cast<int64_t>(Num(G(k, "launches"))), Ms(G(k, "total_ns")), Pct(G(k, "share_pct")),
                         G(k, "bottleneck").is_string() ? Str(G(k, "bottleneck")) : "-");
    }
    out << "\n";
  }
  out << "## Top kernels\n\n";
  table(KernelsTable(r, 1000));
  out << "## Bottleneck mix\n\n";
  table(MixTable(r));
  out << "## Roofline\n\n| Kernel | Precision | FLOP/byte | FLOP/s | % of roof | Class |\n|---|---|---|---|---|---|\n";
  for (const auto& p : G(G(r, "roofline"), "points")) {
    out << fmt::format("| {} | {} | {:.3f} | {} | {:.1f}% | {} |\n", MarkdownText(Str(G(p, "kernel"))), Str(G(p, "precision")),
                       Num(G(p, "intensity")), Sci(G(p, "achieved_flops")), Num(G(p, "pct_of_roof")), Str(G(p, "bottleneck")));
  }
  out << "\n## Largest idle gaps\n\n| Start (ms) | Length (ms) | Host activity |\n|---|---|---|\n";
  const double t0 = Num(G(G(r, "timeline"), "start_ns"));
  for (const auto& g : G(G(r, "timeline"), "largest_gaps")) {
    std::string host;
    for (const auto& h : G(g, "host")) {
      host += fmt::format("{}{} x{} ({} ms)", host.empty() ? "" : ", ", Str(G(h, "api")), static_cast<int64_t>(Num(G(h, "calls"))),
                          Ms(G(h, "ns")));
    }
    out << fmt::format("| {:.3f} | {} | {} |\n", (Num(G(g, "start_ns")) - t0) / 1e6, Ms(G(g, "duration_ns")),
                       MarkdownText(host.empty() ? "outside CUDA calls" : host));
  }
}

}  // namespace kscope::report
