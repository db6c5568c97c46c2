#include "analysis/stages/stage_gpu_metrics.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {

// The mean of a series' samples inside the windows, and how many there were.
std::pair<double, int64_t> MeanInside(const GpuMetricSamples::Series& s, const std::vector<TimeWindow>& windows) {
  double sum = 0;
  int64_t n = 0;
  for (const auto& w : windows) {
    auto lo = std::lower_bound(s.time.begin(), s.time.end(), w.start);
    auto hi = std::lower_bound(lo, s.time.end(), w.end);
    for (auto it = lo; it != hi; ++it) sum += static_cast<double>(s.value[static_cast<size_t>(it - s.time.begin())]);
    n += hi - lo;
  }
  return {n > 0 ? sum / static_cast<double>(n) : 0.0, n};
}

std::optional<double> Mean(const std::map<std::string, GpuMetricSamples::Series>& metrics, std::string_view prefix,
                           const std::vector<TimeWindow>& windows) {
  for (const auto& [name, series] : metrics) {
    if (!name.starts_with(prefix)) continue;
    const auto [mean, n] = MeanInside(series, windows);
    if (n > 0) return mean;
  }
  return std::nullopt;
}

}  // namespace

Result<GpuMetricSamples> LoadGpuMetrics(store::Store& store, int64_t run_id) {
  namespace g = store::gpu_metric;
  auto cols =
      store::ReadColumns(store.db(), run_id, store::kGpuMetricStream, {g::kTime, g::kSource, g::kMetric, g::kValue});
  if (!cols.ok()) return cols.error();
  const auto& c = *cols;
  GpuMetricSamples out;
  if (c.empty() || c[0].empty()) return out;
  std::vector<int64_t> ids(c[2]);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto names = store.Strings(ids);
  if (!names.ok()) return names.error();
  for (size_t i = 0; i < c[0].size(); ++i) {
    auto& series = out.by_source[c[1][i]][names->at(c[2][i])];
    series.time.push_back(c[0][i]);
    series.value.push_back(c[3][i]);
  }
  for (auto& [source, metrics] : out.by_source) {  // the export's order is by time; make sure of it
    for (auto& named : metrics) {
      auto& s = named.second;  // a plain reference: clang 14's lambdas cannot capture a structured binding
      if (std::is_sorted(s.time.begin(), s.time.end())) continue;
      std::vector<size_t> order(s.time.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.time[a] < s.time[b]; });
      GpuMetricSamples::Series sorted;
      for (size_t i : order) {
        sorted.time.push_back(s.time[i]);
        sorted.value.push_back(s.value[i]);
      }
      s = std::move(sorted);
    }
  }
  return out;
}

std::optional<SampledGpuMetrics> SampleOver(const GpuMetricSamples& s, const std::vector<TimeWindow>& windows) {
  std::optional<SampledGpuMetrics> best;
  for (const auto& [source, metrics] : s.by_source) {
    SampledGpuMetrics m;
    m.source = source;
    for (const auto& [name, series] : metrics) m.samples = std::max(m.samples, MeanInside(series, windows).second);
    if (m.samples == 0) continue;
    m.gr_active_pct = Mean(metrics, "GR Active", windows);
    m.sm_active_pct = Mean(metrics, "SMs Active", windows);
    m.sm_issue_pct = Mean(metrics, "SM Issue", windows);
    m.tensor_active_pct = Mean(metrics, "Tensor Active", windows);
    m.dram_read_pct = Mean(metrics, "DRAM Read Bandwidth", windows);
    m.dram_write_pct = Mean(metrics, "DRAM Write Bandwidth", windows);
    if (!best || m.sm_active_pct.value_or(0) > best->sm_active_pct.value_or(0)) best = m;
  }
  return best;
}

}  // namespace kscope::analysis
