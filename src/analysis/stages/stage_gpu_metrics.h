// nsys's GPU metrics sampling over a stage: the share of time the SMs and the tensor pipes
// were active and the DRAM bandwidth used, as nsys samples them every GPU cycle window
// (nsys.gpu_metrics). It covers every kernel, profiled by ncu or not: a cheap check on the
// stage's MFU (which counts the FLOPs of the profiled launches) and MBU.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/timeline/intervals.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// The run's samples (the gpu_metric stream), per sampled GPU and metric name, in time order.
struct GpuMetricSamples {
  struct Series {
    std::vector<int64_t> time, value;
  };
  std::map<int64_t, std::map<std::string, Series>> by_source;  // nsys's typeId per GPU -> metric
  [[nodiscard]] bool empty() const { return by_source.empty(); }
};
Result<GpuMetricSamples> LoadGpuMetrics(store::Store& store, int64_t run_id);

// Means over time windows, in percent of peak as nsys gives them (its samples are whole
// percents); absent when the run has no sample of the metric inside the windows.
struct SampledGpuMetrics {
  int64_t source = 0;   // the GPU: of several, the one whose SMs were most active in the windows
  int64_t samples = 0;  // sample times inside the windows
  std::optional<double> gr_active_pct, sm_active_pct, sm_issue_pct, tensor_active_pct, dram_read_pct, dram_write_pct;
};
std::optional<SampledGpuMetrics> SampleOver(const GpuMetricSamples& s, const std::vector<TimeWindow>& windows);

}  // namespace kscope::analysis
