#include "analysis/timeline/timeline_findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace kscope::analysis {

namespace {

constexpr const char* kUnit = "% of wall time";

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// 2992 -> "2,992"
std::string Count(int64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  const size_t first = digits[0] == '-' ? 1 : 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > first && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// "1 gap", "271 gaps"
std::string Counted(int64_t n, const char* noun) { return Count(n) + " " + noun + (n == 1 ? "" : "s"); }

std::string Duration(int64_t ns) {
  const auto v = static_cast<double>(ns);
  if (ns >= 1'000'000'000) return fmt::format("{:.2f} s", v / 1e9);
  if (ns >= 1'000'000) return fmt::format("{:.1f} ms", v / 1e6);
  if (ns >= 1'000) return fmt::format("{:.1f} us", v / 1e3);
  return fmt::format("{} ns", ns);
}

std::string Bytes(int64_t bytes) {
  const auto v = static_cast<double>(bytes);
  if (bytes >= 1'000'000'000) return fmt::format("{:.1f} GB", v / 1e9);
  if (bytes >= 1'000'000) return fmt::format("{:.1f} MB", v / 1e6);
  if (bytes >= 1'000) return fmt::format("{:.1f} kB", v / 1e3);
  return fmt::format("{} B", bytes);
}

std::string Throughput(const CopyTotals& c) {
  return c.ns > 0 ? fmt::format("{:.1f} GB/s", static_cast<double>(c.bytes) / static_cast<double>(c.ns)) : "n/a";
}

// "cuKernelSetAttribute 2 calls 1.7 ms, cuLibraryLoadData 1 call 99.0 us": the first `limit`.
std::string Activities(const std::vector<HostActivity>& list, size_t limit) {
  std::string out;
  for (const HostActivity& h : list) {
    if (limit-- == 0) break;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {} {}", h.api, Counted(h.calls, "call"), Duration(h.ns));
  }
  return out;
}

std::optional<Finding> LaunchBound(const TimelineDiagnosis& d, const TimelineThresholds& t) {
  const double median_ns = d.median_kernel_us * 1000.0;
  if (d.kernels < t.launch_bound_min_kernels || d.gpu_busy_pct >= t.launch_bound_busy_pct ||
      d.median_kernel_us >= t.short_kernel_us || d.mean_launch_interval_us * 1000.0 <= median_ns) {
    return std::nullopt;
  }
  const int64_t idle = d.wall_ns - d.gpu_busy_ns;
  Finding f;
  f.kind = "launch_bound";
  f.size = Pct(idle, d.wall_ns);
  f.title = fmt::format("Launch-bound: {} GPU operations in {}, the GPU idle {:.1f}% of the time",
                        Count(d.kernels + d.memops), Duration(d.wall_ns), f.size);
  f.detail = fmt::format(
      "{:.0f} launches/s, one every {:.1f} us on average, while the median kernel runs {:.1f} us: the GPU finishes "
      "each kernel long before the next one arrives, so the host's issuing of work sets the pace. Of the {} idle, {} "
      "lies in gaps under {} between launches (launch overhead) and {} in {} of {} or more (host work between "
      "launches, which a graph removes where it lies inside the captured loop).",
      d.launches_per_s, d.mean_launch_interval_us, d.median_kernel_us, Duration(idle), Duration(idle - d.long_gap_ns),
      Duration(t.min_gap_us * 1000), Duration(d.long_gap_ns), Counted(d.long_gaps, "gap"),
      Duration(t.min_gap_us * 1000));
  f.fix =
      "Capture the repeated work in a CUDA graph (torch.compile(mode=\"reduce-overhead\") or torch.cuda.CUDAGraph) so "
      "one launch replaces hundreds, fuse small kernels (torch.compile), or give each launch more work with bigger "
      "batches.";
  return f;
}

std::optional<Finding> GpuIdle(const TimelineDiagnosis& d, const TimelineThresholds& t) {
  const double share = Pct(d.long_gap_ns, d.wall_ns);
  if (share <= t.idle_gap_pct || d.largest_gaps.empty()) return std::nullopt;
  int64_t gap_ns = 0, api_ns = 0, sync_ns = 0;
  for (const Gap& g : d.largest_gaps) {
    gap_ns += g.end - g.start;
    api_ns += g.api_ns;
    sync_ns += g.sync_ns;
  }
  const Gap& top = d.largest_gaps.front();
  Finding f;
  f.kind = "gpu_idle";
  f.size = share;
  f.title = fmt::format("GPU idle {:.1f}% of the time in {} of {} or more", share, Counted(d.long_gaps, "gap"),
                        Duration(t.min_gap_us * 1000));
  f.detail = fmt::format(
      "The largest lasts {} from +{}: the host spent {} of it in CUDA calls{}{}. In the {} largest "
      "gaps ({}), the host was in CUDA calls for {} and in synchronizing calls for {}.",
      Duration(top.end - top.start), Duration(top.start - d.windows.front().start), Duration(top.api_ns),
      top.host.empty() ? "" : " (" + Activities(top.host, 3) + ")",
      top.api_ns < top.end - top.start ? " and the rest outside them" : "",
      Count(static_cast<int64_t>(d.largest_gaps.size())), Duration(gap_ns), Duration(api_ns), Duration(sync_ns));
  if (2 * sync_ns >= gap_ns) {
    f.fix =
        "The host waits in synchronizations and the GPU then waits for the host: synchronize only where a result is "
        "needed (no .item(), .cpu() or torch.cuda.synchronize() inside the loop).";
  } else if (2 * api_ns >= gap_ns) {
    f.fix =
        "The host spends the gaps in CUDA calls: keep allocation, module loading and other setup out of the loop "
        "(warm up first; PyTorch's caching allocator reuses memory).";
  } else {
    f.fix =
        "The host is busy outside CUDA during the gaps (Python, data loading, I/O): overlap that work with the GPU "
        "(DataLoader workers, prefetching, non_blocking copies), move it out of the loop, or cut Python overhead "
        "with CUDA graphs or torch.compile.";
  }
  return f;
}

std::optional<Finding> HostDeviceCopies(const TimelineDiagnosis& d, const TimelineThresholds& t) {
  const CopyStats& c = d.copies;
  const double share = Pct(c.host_device_busy_ns, d.wall_ns);
  if (share <= t.copy_pct) return std::nullopt;
  const CopyTotals both{c.htod.count + c.dtoh.count, c.htod.bytes + c.dtoh.bytes, c.htod.ns + c.dtoh.ns};
  Finding f;
  f.kind = "host_device_copies";
  f.size = share;
  f.title = fmt::format("Host-device copies take {:.1f}% of the time: {} in {} copies", share, Bytes(both.bytes),
                        Count(both.count));
  f.detail = fmt::format("{} host-to-device copies ({}, {}) and {} device-to-host copies ({}, {}), {} on average.",
                         Count(c.htod.count), Bytes(c.htod.bytes), Duration(c.htod.ns), Count(c.dtoh.count),
                         Bytes(c.dtoh.bytes), Duration(c.dtoh.ns), Throughput(both));
  f.fix =
      "Keep data on the GPU between steps and copy less often in bigger pieces; overlap the copies that remain with "
      "compute (pinned memory, non_blocking=True, a separate stream).";
  return f;
}

std::optional<Finding> PageableMemory(const TimelineDiagnosis& d, const TimelineThresholds& t) {
  const CopyStats& c = d.copies;
  const double share = Pct(c.pageable_busy_ns, d.wall_ns);
  if (share <= t.pageable_pct || c.pageable.count == 0) return std::nullopt;
  Finding f;
  f.kind = "pageable_memory";
  f.size = share;
  f.title = fmt::format("Copies from pageable host memory take {:.1f}% of the time: {} in {} copies", share,
                        Bytes(c.pageable.bytes), Count(c.pageable.count));
  f.detail = fmt::format(
      "{} copies ({}, {}, {}) have a pageable host side ({} use pinned memory). The driver stages them through a "
      "pinned buffer: they run slower and block the host (cudaMemcpyAsync included) instead of overlapping with "
      "other work.",
      Count(c.pageable.count), Bytes(c.pageable.bytes), Duration(c.pageable.ns), Throughput(c.pageable),
      Count(c.pinned.count));
  f.fix =
      "Copy from pinned (page-locked) host memory: tensor.pin_memory() or DataLoader(pin_memory=True) with "
      "non_blocking=True in PyTorch, cudaMallocHost or cudaHostAlloc with cudaMemcpyAsync in CUDA.";
  return f;
}

std::optional<Finding> Synchronization(const TimelineDiagnosis& d, const TimelineThresholds& t) {
  const double share = Pct(d.sync_ns, d.wall_ns);
  const double dry = Pct(d.idle_after_sync_ns, d.wall_ns);
  if (share <= t.sync_pct || dry <= t.sync_pct || d.synchronizations.empty()) return std::nullopt;
  Finding f;
  f.kind = "synchronization";
  f.size = share;
  f.title = fmt::format("The host waits in synchronizing calls {:.1f}% of the time", share);
  f.detail = fmt::format(
      "{}. While the host waits it queues no new work, so the GPU runs dry after each one: {} ({:.1f}% of the time) "
      "of idle gaps of {} or more start while one is under way.",
      Activities(d.synchronizations, d.synchronizations.size()), Duration(d.idle_after_sync_ns), dry,
      Duration(t.min_gap_us * 1000));
  f.fix =
      "Synchronize only where the host needs a result: no .item(), .cpu(), .tolist() or torch.cuda.synchronize() "
      "inside the loop; use asynchronous copies and events instead of blocking calls.";
  return f;
}

}  // namespace

std::vector<Finding> TimelineFindings(const TimelineDiagnosis& d, const TimelineThresholds& t) {
  std::vector<std::optional<Finding>> candidates;
  candidates.push_back(LaunchBound(d, t));
  candidates.push_back(GpuIdle(d, t));
  candidates.push_back(HostDeviceCopies(d, t));
  candidates.push_back(PageableMemory(d, t));
  candidates.push_back(Synchronization(d, t));
  std::vector<Finding> out;
  for (auto& finding : candidates) {
    if (finding) {
      finding->size_unit = kUnit;
      out.push_back(std::move(*finding));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& x, const Finding& y) { return x.size > y.size; });
  return out;
}

}  // namespace kscope::analysis
