#include "analysis/iterations/bound_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace kscope::analysis {

namespace {

// Busier than this, the GPU sets the pace whatever its idle time was spent on.
constexpr double kGpuBoundPct = 80;

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string Seconds(int64_t ns) {
  const auto v = static_cast<double>(ns);
  if (ns >= 1'000'000'000) return fmt::format("{:.2f} s", v / 1e9);
  if (ns >= 1'000'000) return fmt::format("{:.1f} ms", v / 1e6);
  return fmt::format("{:.1f} us", v / 1e3);
}

void Attribute(const TimelineEvents& e, const WorkloadTraits& traits, const TimeWindow& gap, int64_t min_gap_ns,
               BoundVerdict& v) {
  const int64_t len = gap.end - gap.start;
  if (len < min_gap_ns) {
    v.launch_gap_ns += len;
  } else if (OverlapNs(traits.module_loads, gap) > 0) {
    v.compilation_ns += len;
  } else if (OverlapNs(e.sync_busy, {gap.start, gap.start + 1}) > 0 ||
             OverlapNs(e.sync_busy, {gap.start - 1, gap.start}) > 0) {
    v.after_sync_ns += len;
  } else if (2 * OverlapNs(e.api_busy, gap) >= len) {
    v.host_cuda_ns += len;
  } else {
    v.host_other_ns += len;
  }
}

void Decide(BoundVerdict& v, const TimelineThresholds& t) {
  const auto share = [&](int64_t ns) { return Pct(ns, v.idle_ns); };
  v.evidence = fmt::format(
      "GPU busy {:.1f}% of {}; of the {} idle: {:.0f}% in gaps under {} between launches, {:.0f}% after "
      "synchronizing calls, {:.0f}% while modules were loaded (compilation), {:.0f}% with the host in other CUDA "
      "calls, {:.0f}% with the host outside CUDA (Python, data loading)",
      v.gpu_busy_pct, Seconds(v.wall_ns), Seconds(v.idle_ns), share(v.launch_gap_ns), Seconds(t.min_gap_us * 1000),
      share(v.after_sync_ns), share(v.compilation_ns), share(v.host_cuda_ns), share(v.host_other_ns));
  if (v.gpu_busy_pct >= kGpuBoundPct) {
    v.kind = "gpu_bound";
    v.title = fmt::format("GPU-bound: the GPU is busy {:.1f}% of the time; the kernels set the pace", v.gpu_busy_pct);
    return;
  }
  const std::array<std::pair<int64_t, const char*>, 4> buckets{{{v.launch_gap_ns, "launch_bound"},
                                                                {v.after_sync_ns, "synchronization_bound"},
                                                                {v.compilation_ns, "compilation_bound"},
                                                                {v.host_cuda_ns + v.host_other_ns, "host_bound"}}};
  const auto top =
      *std::max_element(buckets.begin(), buckets.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  v.kind = top.second;
  const double idle_pct = 100 - v.gpu_busy_pct;
  if (v.kind == "launch_bound") {
    v.title = fmt::format(
        "Launch-bound: the GPU is idle {:.1f}% of the time, {:.0f}% of it in short gaps between "
        "launches",
        idle_pct, share(top.first));
  } else if (v.kind == "synchronization_bound") {
    v.title = fmt::format(
        "Synchronization-bound: the GPU is idle {:.1f}% of the time, {:.0f}% of it after the host "
        "synchronized and before it queued new work",
        idle_pct, share(top.first));
  } else if (v.kind == "compilation_bound") {
    v.title = fmt::format(
        "Compilation-bound: the GPU is idle {:.1f}% of the time, {:.0f}% of it while kernels were "
        "compiled and loaded",
        idle_pct, share(top.first));
  } else {
    v.title = fmt::format(
        "Host-bound: the GPU is idle {:.1f}% of the time, {:.0f}% of it in long gaps while the "
        "host worked ({} in CUDA calls, {} outside them)",
        idle_pct, share(top.first), Seconds(v.host_cuda_ns), Seconds(v.host_other_ns));
  }
}

}  // namespace

BoundVerdict JudgeBound(const TimelineEvents& events, const IntervalSet& windows, const WorkloadTraits& traits,
                        const TimelineThresholds& t) {
  BoundVerdict v;
  if (windows.empty()) return v;
  v.wall_ns = TotalNs(windows);
  v.gpu_busy_ns = TotalNs(Intersect(events.gpu_busy, windows));
  v.idle_ns = v.wall_ns - v.gpu_busy_ns;
  v.gpu_busy_pct = Pct(v.gpu_busy_ns, v.wall_ns);
  for (const TimeWindow& gap : Complement(events.gpu_busy, windows))
    Attribute(events, traits, gap, t.min_gap_us * 1000, v);
  Decide(v, t);
  return v;
}

}  // namespace kscope::analysis
