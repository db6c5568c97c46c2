#include "report/report_text.h"

#include <fmt/format.h>

#include <ostream>

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
std::string Short(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; }

// The stage's main verdict: its largest finding's title, else what its numbers say.
std::string Verdict(const json& stage) {
  const auto& f = stage["findings"];
  if (f.is_array() && !f.empty()) return Str(f[0]["title"]);
  return fmt::format("GPU busy {:.1f}%", Num(stage["gpu_busy_pct"]));
}

Table StagesTable(const json& r) {
  Table t;
  t.title = "Stages (NVTX ranges projected onto the GPU)";
  t.columns = {"Stage",   "Instances", "Range (ms)", "Projected (ms)", "GPU ops", "Kernels (ms)",
               "Busy %",  "FLOPs",     "MFU",        "MBU",            "Verdict"};
  for (const auto& s : r["stages"]) {
    const auto& m = s["mfu"];
    std::string flops = m["flops"].is_number() ? Sci(m["flops"]) + " (" + Str(m["flops_source"]) + ")" : "-";
    t.rows.push_back({std::string(static_cast<size_t>(Num(s["depth"])) * 2, ' ') + Str(s["name"]),
                      static_cast<int64_t>(Num(s["instances"])), Ms(s["range_ns"]), Ms(s["proj_ns"]),
                      static_cast<int64_t>(Num(s["gpu_ops"])), Ms(s["kernel_ns"]), Pct(s["gpu_busy_pct"]), flops,
                      Util(m["mfu_pct"]), Util(m["mbu_pct"]), Verdict(s)});
  }
  return t;
}

Table KernelsTable(const json& r, size_t name_width) {
  Table t;
  t.title = "Top kernels by GPU time (nsys)";
  t.columns = {"#", "Time %", "Time (ms)", "Launches", "Kernel", "Family", "Library", "Class", "Occupancy", "Top stall"};
  for (const auto& k : r["top_kernels"]) {
    t.rows.push_back({static_cast<int64_t>(Num(k["rank"])), Pct(k["share_pct"]), Ms(k["total_ns"]),
                      static_cast<int64_t>(Num(k["launches"])), Short(Str(k["base"]), name_width), Str(k["family"]),
                      Str(k["library"]), k["bottleneck"].is_string() ? Str(k["bottleneck"]) : "-",
                      Pct(k["achieved_occupancy_pct"]), k["top_stall"].is_string() ? Str(k["top_stall"]) : "-"});
  }
  return t;
}

Table MixTable(const json& r) {
  Table t;
  t.title = "Bottleneck mix by GPU time";
  t.columns = {"Class", "Time %", "Time (ms)", "Kernels"};
  for (const auto& m : r["bottleneck_mix"]) {
    t.rows.push_back({Str(m["bottleneck"]), Pct(m["share_pct"]), Ms(m["total_ns"]), static_cast<int64_t>(Num(m["kernels"]))});
  }
  return t;
}

std::string Header(const json& r) {
  const auto& run = r["run"];
  std::string what = "run " + std::to_string(static_cast<int64_t>(Num(run["id"])));
  std::string details;
  for (const char* k : {"label", "model", "dtype"}) {
    if (run[k].is_string()) details += (details.empty() ? "" : ", ") + Str(run[k]);
  }
  if (run["batch"].is_number()) details += (details.empty() ? "" : ", ") + fmt::format("batch {}", Num(run["batch"]));
  if (!details.empty()) what += " (" + details + ")";
  if (run["gpu"].is_string()) what += " on " + Str(run["gpu"]);
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
  const auto& s = r["summary"];
  out << "kscope report: " << Header(r) << "\n";
  out << fmt::format("wall {:.3f} s, GPU busy {:.1f}% ({} kernels: {} ms; {} copies and sets: {} ms); {} launches "
                     "profiled by ncu\n",
                     Num(s["wall_ns"]) / 1e9, Num(s["gpu_busy_pct"]), static_cast<int64_t>(Num(s["kernels"])),
                     Ms(s["kernel_ns"]), static_cast<int64_t>(Num(s["memops"])), Ms(s["memop_ns"]),
                     static_cast<int64_t>(Num(s["profiled_launches"])));
  for (const auto& n : r["notes"]) out << "note: " << Str(n) << "\n";
  out << "\nFindings (whole run)\n";
  for (const auto& f : r["timeline"]["findings"]) {
    out << fmt::format("  - {} ({:.1f}% of wall time)\n    fix: {}\n", Str(f["title"]), Num(f["size"]), Str(f["fix"]));
  }
  out << "\n";
  WriteText(StagesTable(r), out);
  for (const auto& st : r["stages"]) {
    for (const auto& f : st["findings"]) {
      out << fmt::format("  {}: {} ({:.1f}%); fix: {}\n", Str(st["name"]), Str(f["title"]), Num(f["size"]), Str(f["fix"]));
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
  const auto& s = r["summary"];
  out << "# kscope report: " << MarkdownText(Header(r)) << "\n\n";
  if (r["run"]["command"].is_string()) out << "Command: `" << Str(r["run"]["command"]) << "`\n\n";
  out << fmt::format("Wall time {:.3f} s; the GPU busy {:.1f}% of it; {} kernel launches ({} ms), {} copies and sets "
                     "({} ms); {} launches profiled by ncu.\n\n",
                     Num(s["wall_ns"]) / 1e9, Num(s["gpu_busy_pct"]), static_cast<int64_t>(Num(s["kernels"])),
                     Ms(s["kernel_ns"]), static_cast<int64_t>(Num(s["memops"])), Ms(s["memop_ns"]),
                     static_cast<int64_t>(Num(s["profiled_launches"])));
  for (const auto& n : r["notes"]) out << "> " << MarkdownText(Str(n)) << "\n\n";
  out << "## Findings\n\n";
  for (const auto& f : r["timeline"]["findings"]) {
    out << fmt::format("- **{}** ({:.1f}% of wall time). {} *Fix:* {}\n", MarkdownText(Str(f["title"])), Num(f["size"]),
                       MarkdownText(Str(f["detail"])), MarkdownText(Str(f["fix"])));
  }
  out << "\n## Stages\n\n";
  table(StagesTable(r));
  for (const auto& st : r["stages"]) {
    const auto& m = st["mfu"];
    out << "### " << MarkdownText(Str(st["name"])) << "\n\n";
    for (const auto& f : st["findings"]) {
      out << fmt::format("- **{}** ({:.1f}%). {} *Fix:* {}\n", MarkdownText(Str(f["title"])), Num(f["size"]),
                         MarkdownText(Str(f["detail"])), MarkdownText(Str(f["fix"])));
    }
    out << fmt::format("- FLOPs: {} ({}), achieved {}FLOP/s of a {} peak of {}FLOP/s ({}): MFU {}, over kernel time {}\n",
                       Sci(m["flops"]), Str(m["flops_source"]).empty() ? "none" : Str(m["flops_source"]),
                       Sci(m["achieved_flops_per_s"]), Str(m["precision"]).empty() ? "-" : Str(m["precision"]),
                       Sci(m["peak_flops_per_s"]), Str(m["peak_source"]).empty() ? "-" : Str(m["peak_source"]),
                       Util(m["mfu_pct"]), Util(m["kernel_mfu_pct"]));
    out << fmt::format("- DRAM bytes: {}B ({}), {}B/s of {}B/s: MBU {}\n", Sci(m["bytes"]),
                       Str(m["bytes_source"]).empty() ? "none" : Str(m["bytes_source"]), Sci(m["achieved_bytes_per_s"]),
                       Sci(m["peak_bytes_per_s"]), Util(m["mbu_pct"]));
    for (const auto& n : m["notes"]) out << "- " << MarkdownText(Str(n)) << "\n";
    out << "\n| Kernel | Launches | Time (ms) | Share | Class |\n|---|---|---|---|---|\n";
    for (const auto& k : st["top_kernels"]) {
      out << fmt::format("| {} | {} | {} | {} | {} |\n", MarkdownText(Str(k["name"])),
                         static_cast<int64_t>(Num(k["launches"])), Ms(k["total_ns"]), Pct(k["share_pct"]),
                         k["bottleneck"].is_string() ? Str(k["bottleneck"]) : "-");
    }
    out << "\n";
  }
  out << "## Top kernels\n\n";
  table(KernelsTable(r, 1000));
  out << "## Bottleneck mix\n\n";
  table(MixTable(r));
  out << "## Roofline\n\n| Kernel | Precision | FLOP/byte | FLOP/s | % of roof | Class |\n|---|---|---|---|---|---|\n";
  for (const auto& p : r["roofline"]["points"]) {
    out << fmt::format("| {} | {} | {:.3f} | {} | {:.1f}% | {} |\n", MarkdownText(Str(p["kernel"])), Str(p["precision"]),
                       Num(p["intensity"]), Sci(p["achieved_flops"]), Num(p["pct_of_roof"]), Str(p["bottleneck"]));
  }
  out << "\n## Largest idle gaps\n\n| Start (ms) | Length (ms) | Host activity |\n|---|---|---|\n";
  const double t0 = Num(r["timeline"]["start_ns"]);
  for (const auto& g : r["timeline"]["largest_gaps"]) {
    std::string host;
    for (const auto& h : g["host"]) {
      host += fmt::format("{}{} x{} ({} ms)", host.empty() ? "" : ", ", Str(h["api"]), static_cast<int64_t>(Num(h["calls"])),
                          Ms(h["ns"]));
    }
    out << fmt::format("| {:.3f} | {} | {} |\n", (Num(g["start_ns"]) - t0) / 1e6, Ms(g["duration_ns"]),
                       MarkdownText(host.empty() ? "outside CUDA calls" : host));
  }
}

}  // namespace kscope::report
