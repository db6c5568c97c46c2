// nsys's GPU metrics sampling (`nsys profile --gpu-metrics-devices`): the export's GPU_METRICS
// samples of the metrics kscope shows beside MFU, written as the run's gpu_metric stream.
#pragma once

#include <string_view>
#include <vector>

#include "import/nsys/read_context.h"

namespace kscope::import::nsys {

// The metrics kept, by the start of nsys's name ("Tensor Active" of "Tensor Active
// [Throughput %]"): SM and tensor-pipe activity, instruction issue, DRAM bandwidth.
const std::vector<std::string_view>& KeptGpuMetrics();

// GPU_METRICS with the names of TARGET_INFO_GPU_METRICS, on `db`; an export without them
// (nsys ran without GPU metrics) writes nothing.
Status ReadGpuMetrics(FileContext& ctx, sql::Db& db);

}  // namespace kscope::import::nsys
