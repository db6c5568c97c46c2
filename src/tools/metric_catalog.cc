#include "tools/metric_catalog.h"

namespace kscope::tools {

namespace {

constexpr bool kRequired = true;
constexpr bool kOptional = false;

}  // namespace

std::span<const SectionMetric> SectionMetrics() {
  // clang-format off
  static const std::vector<SectionMetric> kMetrics{
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "DRAM Frequency", "dram__cycles_elapsed.avg.per_second", kOptional, {}},
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "SM Frequency", "gpc__cycles_elapsed.avg.per_second", kRequired, {}},
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "Elapsed Cycles", "gpc__cycles_elapsed.max", kRequired, {}},
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "Memory Throughput", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", kRequired, {}},
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "DRAM Throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", kOptional, {}},
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "Duration", "gpu__time_duration.sum", kRequired, {}},
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "L1/TEX Cache Throughput", "l1tex__throughput.avg.pct_of_peak_sustained_active", kRequired, {}},
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "L2 Cache Throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed", kRequired, {}},
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "SM Active Cycles", "sm__cycles_active.avg", kRequired, {}},
    {"SpeedOfLight", "GPU Speed Of Light Throughput", "Compute (SM) Throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed", kRequired, {}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "Local Memory Spilling Requests", "derived__local_spilling_requests", kRequired, {}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "Local Memory Spilling Request Overhead", "derived__local_spilling_requests_pct", kRequired, {}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "Memory Throughput", "dram__bytes.sum.per_second", kOptional, {}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "Mem Busy", "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed", kRequired, {}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "Max Bandwidth", "gpu__compute_memory_request_throughput.avg.pct_of_peak_sustained_elapsed", kRequired, {}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct", kRequired, {}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "L2 Persisting Size", "launch__persisting_l2_cache_size", kOptional, {}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "L2 Compression Success Rate", "lrc__average_ilc_input_sector_success_rate.pct", kOptional, {"lts__average_gcomp_input_sector_success_rate.pct"}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "L2 Compression Ratio", "lrc__average_ilc_output_sector_compression_achieved_rate.pct", kOptional, {"lts__average_gcomp_output_sector_compression_achieved_rate.ratio"}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "L2 Compression Input Sectors", "lrc__ilc_input_sectors.sum", kOptional, {"lts__gcomp_input_sectors.sum"}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "L2 Hit Rate", "lts__t_sector_hit_rate.pct", kRequired, {}},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis", "Mem Pipes Busy", "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Block Size", "launch__block_size", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Cluster Scheduling Policy", "launch__cluster_scheduling_policy", kOptional, {}},
    {"LaunchStats", "Launch Statistics", "Cluster Size", "launch__cluster_size", kOptional, {}},
    {"LaunchStats", "Launch Statistics", "Function Cache Configuration", "launch__func_cache_config", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Grid Size", "launch__grid_size", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Registers Per Thread", "launch__registers_per_thread", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Shared Memory Configuration Size", "launch__shared_mem_config_size", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Driver Shared Memory Per Block", "launch__shared_mem_per_block_driver", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Dynamic Shared Memory Per Block", "launch__shared_mem_per_block_dynamic", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Static Shared Memory Per Block", "launch__shared_mem_per_block_static", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "# SMs", "launch__sm_count", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Stack Size", "launch__stack_size", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Threads", "launch__thread_count", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "# TPCs", "launch__tpc_count", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Enabled TPC IDs", "launch__tpc_enabled", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Uses Green Context", "launch__uses_green_context", kRequired, {}},
    {"LaunchStats", "Launch Statistics", "Waves Per SM", "launch__waves_per_multiprocessor", kRequired, {}},
    {"Occupancy", "Occupancy", "Max Active Clusters", "launch__cluster_max_active", kOptional, {}},
    {"Occupancy", "Occupancy", "Max Cluster Size", "launch__cluster_max_potential_size", kOptional, {}},
    {"Occupancy", "Occupancy", "Overall GPU Occupancy", "launch__occupancy_cluster_gpu_pct", kOptional, {}},
    {"Occupancy", "Occupancy", "Cluster Occupancy", "launch__occupancy_cluster_pct", kOptional, {}},
    {"Occupancy", "Occupancy", "Block Limit Barriers", "launch__occupancy_limit_barriers", kOptional, {}},
    {"Occupancy", "Occupancy", "Block Limit SM", "launch__occupancy_limit_blocks", kRequired, {}},
    {"Occupancy", "Occupancy", "Block Limit Registers", "launch__occupancy_limit_registers", kRequired, {}},
    {"Occupancy", "Occupancy", "Block Limit Shared Mem", "launch__occupancy_limit_shared_mem", kRequired, {}},
    {"Occupancy", "Occupancy", "Block Limit Warps", "launch__occupancy_limit_warps", kRequired, {}},
    {"Occupancy", "Occupancy", "Theoretical Active Warps per SM", "sm__maximum_warps_avg_per_active_cycle", kRequired, {}},
    {"Occupancy", "Occupancy", "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct", kRequired, {}},
    {"Occupancy", "Occupancy", "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", kRequired, {}},
    {"Occupancy", "Occupancy", "Achieved Active Warps Per SM", "sm__warps_active.avg.per_cycle_active", kRequired, {}},
    {"ComputeWorkloadAnalysis", "Compute Workload Analysis", "Executed Ipc Active", "sm__inst_executed.avg.per_cycle_active", kRequired, {}},
    {"ComputeWorkloadAnalysis", "Compute Workload Analysis", "Executed Ipc Elapsed", "sm__inst_executed.avg.per_cycle_elapsed", kRequired, {}},
    {"ComputeWorkloadAnalysis", "Compute Workload Analysis", "Issue Slots Busy", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed", kRequired, {}},
    {"ComputeWorkloadAnalysis", "Compute Workload Analysis", "Issued Ipc Active", "sm__inst_issued.avg.per_cycle_active", kRequired, {}},
    {"ComputeWorkloadAnalysis", "Compute Workload Analysis", "SM Busy", "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed", kRequired, {}},
    {"SchedulerStats", "Scheduler Statistics", "One or More Eligible", "smsp__issue_active.avg.pct_of_peak_sustained_active", kRequired, {}},
    {"SchedulerStats", "Scheduler Statistics", "Issued Warp Per Scheduler", "smsp__issue_active.avg.per_cycle_active", kRequired, {}},
    {"SchedulerStats", "Scheduler Statistics", "No Eligible", "smsp__issue_inst0.avg.pct_of_peak_sustained_active", kRequired, {}},
    {"SchedulerStats", "Scheduler Statistics", "Active Warps Per Scheduler", "smsp__warps_active.avg.per_cycle_active", kRequired, {}},
    {"SchedulerStats", "Scheduler Statistics", "Eligible Warps Per Scheduler", "smsp__warps_eligible.avg.per_cycle_active", kRequired, {}},
    {"WarpStateStats", "Warp State Statistics", "Warp Cycles Per Issued Instruction", "smsp__average_warp_latency_per_inst_issued.ratio", kRequired, {}},
    {"WarpStateStats", "Warp State Statistics", "Warp Cycles Per Executed Instruction", "smsp__average_warps_active_per_inst_executed.ratio", kRequired, {}},
    {"WarpStateStats", "Warp State Statistics", "Avg. Active Threads Per Warp", "smsp__thread_inst_executed_per_inst_executed.ratio", kRequired, {}},
    {"WarpStateStats", "Warp State Statistics", "Avg. Not Predicated Off Threads Per Warp", "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", kRequired, {}},
    {"InstructionStats", "Instruction Statistics", "Avg. Executed Instructions Per Scheduler", "smsp__inst_executed.avg", kRequired, {}},
    {"InstructionStats", "Instruction Statistics", "Executed Instructions", "smsp__inst_executed.sum", kRequired, {}},
    {"InstructionStats", "Instruction Statistics", "Avg. Issued Instructions Per Scheduler", "smsp__inst_issued.avg", kRequired, {}},
    {"InstructionStats", "Instruction Statistics", "Issued Instructions", "smsp__inst_issued.sum", kRequired, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Average DRAM Active Cycles", "dram__cycles_active.avg", kOptional, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Total DRAM Elapsed Cycles", "dram__cycles_elapsed.sum", kOptional, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Average L1 Active Cycles", "l1tex__cycles_active.avg", kRequired, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Total L1 Elapsed Cycles", "l1tex__cycles_elapsed.sum", kRequired, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Average L2 Active Cycles", "lts__cycles_active.avg", kRequired, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Total L2 Elapsed Cycles", "lts__cycles_elapsed.sum", kRequired, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Average SM Active Cycles", "sm__cycles_active.avg", kRequired, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Total SM Elapsed Cycles", "sm__cycles_elapsed.sum", kRequired, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Average SMSP Active Cycles", "smsp__cycles_active.avg", kRequired, {}},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution", "Total SMSP Elapsed Cycles", "smsp__cycles_elapsed.sum", kRequired, {}},
    {"SourceCounters", "Source Counters", "Branch Instructions Ratio", "derived__smsp__inst_executed_op_branch_pct", kRequired, {}},
    {"SourceCounters", "Source Counters", "Branch Instructions", "smsp__inst_executed_op_branch.sum", kRequired, {}},
    {"SourceCounters", "Source Counters", "Branch Efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct", kRequired, {}},
    {"SourceCounters", "Source Counters", "Avg. Divergent Branches", "smsp__sass_branch_targets_threads_divergent.avg", kRequired, {}},
    {"PmSampling", "PM Sampling", "Maximum Buffer Size", "profiler__pmsampler_buffer_size_bytes", kRequired, {}},
    {"PmSampling", "PM Sampling", "Maximum Sampling Interval", "profiler__pmsampler_interval_time", kOptional, {"profiler__pmsampler_interval_cycles"}},
    {"PmSampling", "PM Sampling", "# Pass Groups", "profiler__pmsampler_pass_groups", kRequired, {}},
  };
  // clang-format on
  return kMetrics;
}

std::vector<std::string_view> AlternateNames(std::string_view metric) {
  std::vector<std::string_view> out;
  for (const auto& m : SectionMetrics()) {
    if (m.metric == metric) out.insert(out.end(), m.alternates.begin(), m.alternates.end());
    for (const auto& alt : m.alternates) {
      if (alt == metric) out.push_back(m.metric);
    }
  }
  return out;
}

const SectionMetric* FindSectionMetric(std::string_view section_title, std::string_view label) {
  for (const auto& m : SectionMetrics()) {
    if (m.section_title == section_title && m.label == label) return &m;
  }
  return nullptr;
}

}  // namespace kscope::tools
