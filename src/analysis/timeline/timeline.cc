#include "analysis/timeline/timeline.h"

#include <algorithm>

#include "analysis/timeline/duration_stats.h"
#include "analysis/timeline/timeline_findings.h"

namespace kscope::analysis {

namespace {

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Calls fn(i) for each i whose start[i] lies in one of the windows (start sorted).
template <typename Fn>
void ForEachStartIn(const std::vector<int64_t>& start, const IntervalSet& windows, Fn fn) {
  for (const TimeWindow& w : windows) {
    auto first = std::lower_bound(start.begin(), start.end(), w.start);
    auto last = std::lower_bound(first, start.end(), w.end);
    for (auto it = first; it != last; ++it) fn(static_cast<size_t>(it - start.begin()));
  }
}

void Add(CopyTotals& t, int64_t bytes, int64_t ns) {
  ++t.count;
  t.bytes += bytes;
  t.ns += ns;
}

void CountKernels(const TimelineEvents& e, TimelineDiagnosis& d) {
  std::vector<int64_t> durations;
  ForEachStartIn(e.kernels.start, d.windows,
                 [&](size_t i) { durations.push_back(e.kernels.end[i] - e.kernels.start[i]); });
  const DurationStats stats = ComputeStats(durations);
  d.kernels = stats.n;
  d.kernel_ns = stats.total;
  d.median_kernel_us = stats.median / 1000.0;
}

void CountCopies(const TimelineEvents& e, TimelineDiagnosis& d) {
  const auto& m = e.memops;
  CopyStats& c = d.copies;
  ForEachStartIn(m.start, d.windows, [&](size_t i) {
    ++d.memops;
    const int64_t ns = m.end[i] - m.start[i];
    switch (m.direction[i]) {
      case CopyDirection::kHtoD: Add(c.htod, m.bytes[i], ns); break;
      case CopyDirection::kDtoH: Add(c.dtoh, m.bytes[i], ns); break;
      case CopyDirection::kDtoD: Add(c.dtod, m.bytes[i], ns); break;
      case CopyDirection::kPtoP: Add(c.ptop, m.bytes[i], ns); break;
      case CopyDirection::kOther: Add(c.other, m.bytes[i], ns); break;
      case CopyDirection::kMemset: Add(c.memset, m.bytes[i], ns); break;
    }
    if (m.host[i] == HostMemory::kPageable) Add(c.pageable, m.bytes[i], ns);
    if (m.host[i] == HostMemory::kPinned) Add(c.pinned, m.bytes[i], ns);
  });
  std::vector<TimeWindow> host_device, pageable;
  for (size_t i = 0; i < m.start.size(); ++i) {
    const bool hd = m.direction[i] == CopyDirection::kHtoD || m.direction[i] == CopyDirection::kDtoH;
    if (hd) host_device.push_back({m.start[i], m.end[i]});
    if (m.host[i] == HostMemory::kPageable) pageable.push_back({m.start[i], m.end[i]});
  }
  c.host_device_busy_ns = TotalNs(Intersect(MergeIntervals(std::move(host_device)), d.windows));
  c.pageable_busy_ns = TotalNs(Intersect(MergeIntervals(std::move(pageable)), d.windows));
}

// The windows laid end to end, cut into equal bins; busy is clipped to the windows.
std::vector<BusyBin> Bins(const IntervalSet& windows, const IntervalSet& busy, int64_t wall, size_t bins) {
  const auto n = static_cast<int64_t>(std::min<size_t>(bins, static_cast<size_t>(std::max<int64_t>(wall, 0))));
  if (n == 0) return {};
  // Edges in window time (ns of windows before a point): edge[i] = floor(wall * i / n), without
  // overflow. Bin i is [edge[i], edge[i + 1]).
  std::vector<int64_t> edge;
  for (int64_t i = 0; i <= n; ++i) edge.push_back(wall / n * i + wall % n * i / n);
  std::vector<int64_t> before(windows.size() + 1, 0);  // window time before window k
  for (size_t k = 0; k < windows.size(); ++k) before[k + 1] = before[k] + windows[k].end - windows[k].start;
  // A window-time offset as a timestamp; an end offset at a window's end stays in that window.
  auto to_time = [&](int64_t offset, bool is_end) {
    auto it = is_end ? std::lower_bound(before.begin() + 1, before.end(), offset)
                     : std::upper_bound(before.begin() + 1, before.end(), offset);
    const size_t k = std::min(static_cast<size_t>(it - before.begin()) - 1, windows.size() - 1);
    return windows[k].start + (offset - before[k]);
  };
  std::vector<int64_t> busy_ns(static_cast<size_t>(n), 0);
  size_t k = 0;
  for (const TimeWindow& b : busy) {  // each busy part lies inside one window
    while (windows[k].end < b.end) ++k;
    const int64_t from = before[k] + (b.start - windows[k].start);
    const int64_t to = from + (b.end - b.start);
    auto i = static_cast<size_t>(std::upper_bound(edge.begin(), edge.end(), from) - edge.begin()) - 1;
    for (; i < busy_ns.size() && edge[i] < to; ++i) busy_ns[i] += std::min(to, edge[i + 1]) - std::max(from, edge[i]);
  }
  std::vector<BusyBin> out;
  for (size_t i = 0; i < busy_ns.size(); ++i) {
    out.push_back({to_time(edge[i], false), to_time(edge[i + 1], true), Pct(busy_ns[i], edge[i + 1] - edge[i])});
  }
  return out;
}

// API time per function inside the windows, largest first (then by name), at most `limit`
// functions. A call that overlaps two windows counts in each.
std::vector<HostActivity> HostActivities(const TimelineEvents& e, const IntervalSet& windows, bool sync_only,
                                         size_t limit) {
  const auto& a = e.api;
  std::vector<HostActivity> by_function(e.functions.size());
  for (const TimeWindow& w : windows) {
    // Calls that overlap w started at most longest_api_ns before it.
    auto first = std::lower_bound(a.start.begin(), a.start.end(), w.start - e.longest_api_ns);
    auto last = std::lower_bound(first, a.start.end(), w.end);
    for (auto i = static_cast<size_t>(first - a.start.begin()); i < static_cast<size_t>(last - a.start.begin()); ++i) {
      const int64_t ns = std::min(a.end[i], w.end) - std::max(a.start[i], w.start);
      if (ns <= 0 || (sync_only && !e.functions[a.function[i]].synchronizes)) continue;
      HostActivity& h = by_function[a.function[i]];
      ++h.calls;
      h.ns += ns;
    }
  }
  std::vector<HostActivity> out;
  for (size_t f = 0; f < by_function.size(); ++f) {
    if (by_function[f].calls == 0) continue;
    out.push_back(std::move(by_function[f]));
    out.back().api = e.functions[f].name;
  }
  std::sort(out.begin(), out.end(),
            [](const HostActivity& x, const HostActivity& y) { return x.ns != y.ns ? x.ns > y.ns : x.api < y.api; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

void FindGaps(const TimelineEvents& e, const IntervalSet& busy, const TimelineThresholds& t, TimelineDiagnosis& d) {
  IntervalSet gaps = Complement(busy, d.windows);
  const int64_t min_ns = t.min_gap_us * 1000;
  std::erase_if(gaps, [&](const TimeWindow& g) { return g.end - g.start < min_ns; });
  d.long_gaps = static_cast<int64_t>(gaps.size());
  d.long_gap_ns = TotalNs(gaps);
  for (const TimeWindow& g : gaps) {
    if (OverlapNs(e.sync_busy, {g.start - 1, g.start + 1}) > 0) d.idle_after_sync_ns += g.end - g.start;
  }
  const size_t keep = std::min(t.largest_gaps, gaps.size());
  std::partial_sort(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(keep), gaps.end(),
                    [](const TimeWindow& x, const TimeWindow& y) {
                      const int64_t lx = x.end - x.start, ly = y.end - y.start;
                      return lx != ly ? lx > ly : x.start < y.start;
                    });
  for (size_t i = 0; i < keep; ++i) {
    const TimeWindow g = gaps[i];
    d.largest_gaps.push_back({g.start, g.end, OverlapNs(e.api_busy, g), OverlapNs(e.sync_busy, g),
                              HostActivities(e, {g}, false, t.gap_host_functions)});
  }
}

}  // namespace

TimelineDiagnosis DiagnoseTimeline(const TimelineEvents& e, std::span<const TimeWindow> windows,
                                   const TimelineThresholds& t) {
  TimelineDiagnosis d;
  if (windows.empty()) {
    d.windows = MergeIntervals({e.span});
  } else {
    d.windows = MergeIntervals({windows.begin(), windows.end()});
  }
  d.wall_ns = TotalNs(d.windows);
  const IntervalSet busy = Intersect(e.gpu_busy, d.windows);
  d.gpu_busy_ns = TotalNs(busy);
  d.gpu_busy_pct = Pct(d.gpu_busy_ns, d.wall_ns);
  CountKernels(e, d);
  CountCopies(e, d);
  const int64_t ops = d.kernels + d.memops;
  if (d.wall_ns > 0) d.launches_per_s = static_cast<double>(ops) * 1e9 / static_cast<double>(d.wall_ns);
  if (ops > 0) d.mean_launch_interval_us = static_cast<double>(d.wall_ns) / static_cast<double>(ops) / 1000.0;
  d.sync_ns = TotalNs(Intersect(e.sync_busy, d.windows));
  d.synchronizations = HostActivities(e, d.windows, true, e.functions.size());
  d.bins = Bins(d.windows, busy, d.wall_ns, t.bins);
  FindGaps(e, busy, t, d);
  d.findings = TimelineFindings(d, t);
  return d;
}

}  // namespace kscope::analysis
