#include "report/report_text_iterations.h"

#include <fmt/format.h>

#include <algorithm>

namespace kscope::report {

namespace {

std::string Ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }
std::string Ms(int64_t ns) { return Ms(static_cast<double>(ns)); }
std::string Pct(double v) { return fmt::format("{:.1f}%", v); }
std::string Pct(std::optional<double> v) { return v ? Pct(*v) : "-"; }

// An iteration's sampled SM, tensor and DRAM figures ("-" where nsys had no sample in it).
void AppendSampled(const std::optional<analysis::SampledGpuMetrics>& m, std::vector<Cell>& row) {
  if (!m) {
    row.insert(row.end(), {"-", "-", "-", "-"});
    return;
  }
  row.insert(row.end(),
             {Pct(m->sm_active_pct), Pct(m->tensor_active_pct), Pct(m->dram_read_pct), Pct(m->dram_write_pct)});
}

std::string Workload(const WorkloadPart& w) {
  std::string out;
  if (w.graph_launches > 0) {
    out +=
        fmt::format("replays CUDA graphs ({} launches, {:.1f}% of kernel time)", w.graph_launches, w.graph_kernel_pct);
  }
  if (w.triton_kernels > 0) {
    out += fmt::format("{}uses torch.compile ({} Triton kernel launches, {:.1f}% of kernel time)",
                       out.empty() ? "" : "; ", w.triton_kernels, w.triton_kernel_pct);
  }
  return out;
}

}  // namespace

std::vector<std::string> HeadlineLines(const RunReport& r) {
  std::vector<std::string> out;
  if (!r.headline) return out;
  const HeadlinePart& h = *r.headline;
  out.push_back(fmt::format("Headline ({}): {}", h.scope, h.verdict.title));
  out.push_back("  evidence: " + h.verdict.evidence);
  if (h.whole_run && h.whole_run->kind != h.verdict.kind) {
    out.push_back(fmt::format("  whole run: {}", h.whole_run->title));
  }
  if (const std::string w = Workload(r.workload); !w.empty()) out.push_back("  the workload already " + w);
  return out;
}

Table PhasesTable(const RunReport& r) {
  Table t;
  t.title = "Phases of the run (start-up, compilation and warm-up apart from the steady part)";
  t.columns = {"Phase", "Wall (ms)", "Share of run", "GPU busy %", "Kernels", "From (ms)", "To (ms)"};
  const int64_t origin = r.timeline.start_ns;
  for (const auto& p : r.phases) {
    t.rows.push_back({p.kind, Ms(p.wall_ns), Pct(p.share_pct), Pct(p.gpu_busy_pct), p.kernels, Ms(p.start - origin),
                      Ms(p.end - origin)});
  }
  return t;
}

Table IterationsTable(const IterationPart& p, size_t max_rows) {
  Table t;
  t.title = "Iterations (found without NVTX, from the " + p.source + ")";
  t.columns = {"#", "Kind", "Start (ms)", "Wall (ms)", "Kernels", "Kernel time (ms)", "GPU busy %"};
  // nsys's sampled GPU metrics, where the run was recorded with them.
  const bool sampled = std::any_of(p.rows.begin(), p.rows.end(), [](const auto& r) { return r.gpu_metrics; });
  if (sampled) t.columns.insert(t.columns.end(), {"SMs active", "Tensor active", "DRAM read", "DRAM write"});
  const size_t n = p.rows.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > max_rows && i >= max_rows - 2 && i + 2 < n) {
      if (i == max_rows - 2) {
        t.rows.push_back({"...", fmt::format("{} more", n - max_rows)});
        t.rows.back().resize(t.columns.size(), std::string());
      }
      continue;
    }
    const IterationRow& row = p.rows[i];
    t.rows.push_back({row.index, row.kind, Ms(row.start_ns), Ms(row.wall_ns), row.kernels, Ms(row.kernel_ns),
                      Pct(row.gpu_busy_pct)});
    if (sampled) AppendSampled(row.gpu_metrics, t.rows.back());
  }
  return t;
}

// "sampled by nsys (every kernel, 812 samples): SMs active 41.0%, tensor active 12.3%, ..."
std::string SampledLine(const analysis::SampledGpuMetrics& m) {
  return fmt::format(
      "sampled by nsys (every kernel, {} samples of the steady windows): SMs active {}, SM issue {}, tensor active {}, "
      "DRAM read {} and write {} of peak bandwidth",
      m.samples, Pct(m.sm_active_pct), Pct(m.sm_issue_pct), Pct(m.tensor_active_pct), Pct(m.dram_read_pct),
      Pct(m.dram_write_pct));
}

std::string IterationsSummary(const IterationPart& p) {
  return fmt::format(
      "{} iterations of {} kernels ({}); {} before the loop differ, {} warm-up, {} steady; the first took {} ms, the "
      "steady ones {} ms (median), GPU busy {:.1f}%; the loop holds {:.1f}% of the run's kernel time",
      p.loop_iterations, p.period_kernels, p.evidence, p.differing, p.warmup, p.steady, Ms(p.first_wall_ns),
      Ms(p.steady_median_wall_ns), p.steady_gpu_busy_pct, p.kernel_coverage_pct);
}

}  // namespace kscope::report
