// A timeline diagnosis as stable text, every field, numbers with fixed precision: what the
// timeline diff test compares with its golden file.
#pragma once

#include <fmt/format.h>

#include <string>

#include "analysis/timeline/timeline.h"

namespace kscope::testing {

inline std::string HostLines(const std::vector<analysis::HostActivity>& list, const std::string& indent) {
  std::string out;
  for (const auto& h : list) out += fmt::format("{}{}: {} calls, {} ns\n", indent, h.api, h.calls, h.ns);
  return out;
}

inline std::string CopyLine(const char* name, const analysis::CopyTotals& c) {
  return fmt::format("  {}: {} ops, {} bytes, {} ns\n", name, c.count, c.bytes, c.ns);
}

inline std::string PrintTimeline(const std::string& title, const analysis::TimelineDiagnosis& d) {
  std::string out = "== " + title + " ==\n";
  for (const auto& w : d.windows) out += fmt::format("window [{}, {})\n", w.start, w.end);
  out += fmt::format("wall {} ns, GPU busy {} ns ({:.3f}%)\n", d.wall_ns, d.gpu_busy_ns, d.gpu_busy_pct);
  out += fmt::format("kernels {} ({} ns, median {:.3f} us), memops {}\n", d.kernels, d.kernel_ns, d.median_kernel_us,
                     d.memops);
  out += fmt::format("launches {:.3f}/s, mean interval {:.3f} us\n", d.launches_per_s, d.mean_launch_interval_us);
  out += fmt::format("long gaps {} ({} ns), sync {} ns\n", d.long_gaps, d.long_gap_ns, d.sync_ns);
  out += HostLines(d.synchronizations, "  sync ");
  const auto& c = d.copies;
  out += "copies:\n" + CopyLine("HtoD", c.htod) + CopyLine("DtoH", c.dtoh) + CopyLine("DtoD", c.dtod) +
         CopyLine("PtoP", c.ptop) + CopyLine("other", c.other) + CopyLine("memset", c.memset) +
         CopyLine("pageable", c.pageable) + CopyLine("pinned", c.pinned);
  out += fmt::format("  host-device busy {} ns, pageable busy {} ns\n", c.host_device_busy_ns, c.pageable_busy_ns);
  for (const auto& g : d.largest_gaps) {
    out += fmt::format("gap [{}, {}) {} ns: CUDA calls {} ns, synchronizing {} ns\n", g.start, g.end, g.end - g.start,
                       g.api_ns, g.sync_ns);
    out += HostLines(g.host, "  ");
  }
  out += fmt::format("bins {} (busy %):\n", d.bins.size());
  for (size_t i = 0; i < d.bins.size(); i += 10) {
    out += fmt::format("  [{}, {})", d.bins[i].start, d.bins[std::min(i + 10, d.bins.size()) - 1].end);
    for (size_t j = i; j < std::min(i + 10, d.bins.size()); ++j) out += fmt::format(" {:.2f}", d.bins[j].busy_pct);
    out += "\n";
  }
  for (const auto& f : d.findings) {
    out += fmt::format("finding {}: {:.3f} {}\n  {}\n  {}\n  fix: {}\n", f.kind, f.size, f.size_unit, f.title, f.detail,
                       f.fix);
  }
  return out + "\n";
}

}  // namespace kscope::testing
