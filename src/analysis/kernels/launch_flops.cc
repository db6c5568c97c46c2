#include "analysis/kernels/launch_flops.h"

#include <algorithm>

#include "analysis/kernels/roofline.h"

namespace kscope::analysis {

namespace {

struct Counter {
  std::string_view precision;
  std::string_view metric;  // a .sum counter
  double flops;             // FLOPs per count
};

// Instruction counts are per thread (smsp__sass_thread_inst_executed_*), as the roofline
// sections count them; tensor paths count operations.
constexpr Counter kCounters[] = {
    {"FP64", "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 1},
    {"FP64", "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 1},
    {"FP64", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 2},
    {"FP32", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1},
    {"FP32", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 1},
    {"FP32", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 2},
    {"FP16", "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", 2},
    {"FP16", "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", 2},
    {"FP16", "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 4},
    {"Tensor BF16", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", 1},
    {"Tensor FP16", "sm__ops_path_tensor_src_fp16.sum", 1},
    {"Tensor TF32", "sm__ops_path_tensor_src_tf32_dst_fp32.sum", 1},
    {"Tensor FP8", "sm__ops_path_tensor_src_fp8.sum", 1},
};

}  // namespace

const std::vector<std::string>& FlopMetrics() {
  static const std::vector<std::string> kMetrics = [] {
    std::vector<std::string> m;
    auto add = [&](std::string_view metric) {
      if (std::find(m.begin(), m.end(), metric) == m.end()) m.emplace_back(metric);
    };
    for (const Counter& c : kCounters) add(c.metric);
    for (const std::string& r : RooflineMetrics()) add(r);
    add("dram__bytes.sum");
    add("gpu__time_duration.sum");
    return m;
  }();
  return kMetrics;
}

bool HasFlopCounters(const NcuLaunch& launch) {
  for (const Counter& c : kCounters) {
    if (launch.Number(c.metric)) return true;
  }
  return !ComputeRoofline(launch).points.empty();
}

std::map<std::string, double> LaunchFlops(const NcuLaunch& launch) {
  std::map<std::string, double> flops;
  bool counted = false;
  for (const Counter& c : kCounters) {
    if (auto v = launch.Number(c.metric)) {
      counted = true;
      if (*v > 0) flops[std::string(c.precision)] += *v * c.flops;
    }
  }
  if (counted) return flops;
  // A report with the roofline sections only: their rates times the duration.
  const double seconds = launch.Number("gpu__time_duration.sum").value_or(0) * 1e-9;
  for (const auto& p : ComputeRoofline(launch).points) {
    if (p.achieved_flops > 0) flops[std::string(p.precision)] += p.achieved_flops * seconds;
  }
  return flops;
}

}  // namespace kscope::analysis
