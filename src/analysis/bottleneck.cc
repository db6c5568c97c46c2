#include "analysis/bottleneck.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace kscope::analysis {

namespace {

constexpr std::string_view kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kStallSuffix = "_per_issue_active.ratio";

Evidence Gather(const NcuLaunch& l) {
  Evidence e;
  e.duration_ns = l.Number("gpu__time_duration.sum");
  e.sm_pct = l.Number("sm__throughput.avg.pct_of_peak_sustained_elapsed");
  e.memory_pct = l.Number("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
  e.dram_pct = l.Number("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
  e.l1_pct = l.Number("l1tex__throughput.avg.pct_of_peak_sustained_active");
  e.l2_pct = l.Number("lts__throughput.avg.pct_of_peak_sustained_elapsed");
  e.l1_hit_pct = l.Number("l1tex__t_sector_hit_rate.pct");
  e.l2_hit_pct = l.Number("lts__t_sector_hit_rate.pct");
  e.achieved_occupancy_pct = l.Number("sm__warps_active.avg.pct_of_peak_sustained_active");
  e.theoretical_occupancy_pct = l.Number("sm__maximum_warps_per_active_cycle_pct");
  e.waves = l.Number("launch__waves_per_multiprocessor");
  e.grid_blocks = l.Number("launch__grid_size");
  e.sm_count = l.Number("launch__sm_count");
  // The limiter of theoretical occupancy: the resource allowing the fewest blocks per SM.
  constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kLimits{
      {{"launch__occupancy_limit_registers", "registers"},
       {"launch__occupancy_limit_shared_mem", "shared memory"},
       {"launch__occupancy_limit_warps", "warps"},
       {"launch__occupancy_limit_blocks", "blocks per SM"},
       {"launch__occupancy_limit_barriers", "barriers"}}};
  double fewest = 0;
  for (const auto& [metric, name] : kLimits) {
    auto v = l.Number(metric);
    if (v && (e.occupancy_limiter.empty() || *v < fewest)) {
      fewest = *v;
      e.occupancy_limiter = name;
    }
  }
  double total = 0;
  for (const auto& [metric, value] : l.metrics) {
    if (!value.number || !metric.starts_with(kStallPrefix) || !metric.ends_with(kStallSuffix)) continue;
    std::string reason = metric.substr(kStallPrefix.size(), metric.size() - kStallPrefix.size() - kStallSuffix.size());
    if (reason.ends_with("_not_issued") || reason == "selected") continue;  // not a stall / a breakdown of one
    total += *value.number;
    e.top_stalls.push_back({std::move(reason), *value.number, 0});
  }
  std::sort(e.top_stalls.begin(), e.top_stalls.end(), [](const Stall& a, const Stall& b) {
    return a.cycles != b.cycles ? a.cycles > b.cycles : a.reason < b.reason;
  });
  if (e.top_stalls.size() > 3) e.top_stalls.resize(3);
  for (Stall& s : e.top_stalls) s.share = total > 0 ? 100.0 * s.cycles / total : 0;
  return e;
}

std::string Pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : "n/a"; }

}  // namespace

std::string_view BottleneckName(Bottleneck b) {
  switch (b) {
    case Bottleneck::kCompute: return "compute";
    case Bottleneck::kMemory: return "memory (DRAM)";
    case Bottleneck::kCache: return "cache (L1/L2)";
    case Bottleneck::kLatency: return "latency/occupancy";
    case Bottleneck::kLaunch: return "launch";
    case Bottleneck::kUnknown: return "unknown";
  }
  return "unknown";
}

Diagnosis Diagnose(const NcuLaunch& l, const ClassifyThresholds& t) {
  Diagnosis d;
  d.evidence = Gather(l);
  const Evidence& e = d.evidence;
  auto need = [&](const std::optional<double>& v, std::string_view metric) {
    if (!v) d.missing.emplace_back(metric);
  };
  need(e.duration_ns, "gpu__time_duration.sum");
  need(e.sm_pct, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
  need(e.memory_pct, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
  if (!d.missing.empty()) {
    d.why = "not enough metrics: collect the SpeedOfLight section (ncu --section SpeedOfLight)";
    return d;
  }
  const double sm = *e.sm_pct, mem = *e.memory_pct;
  const double dram = e.dram_pct.value_or(0), l1 = e.l1_pct.value_or(0), l2 = e.l2_pct.value_or(0);
  const double us = *e.duration_ns / 1000.0;
  if (us < t.launch_us && e.waves && *e.waves < t.launch_waves && sm < t.busy_pct && mem < t.busy_pct) {
    d.bottleneck = Bottleneck::kLaunch;
    d.why = fmt::format("{:.2f} us with {:.2f} waves: the GPU is barely filled (SM {:.1f}%, memory {:.1f}%)", us,
                        *e.waves, sm, mem);
    d.advice = {"fuse this kernel with its neighbours (torch.compile, a fused kernel) to pay the launch once",
                "capture the sequence in a CUDA graph to cut launch overhead",
                "give it more work per launch (a bigger batch, or batching small ops)"};
  } else if (sm >= t.busy_pct && sm >= mem) {
    d.bottleneck = Bottleneck::kCompute;
    d.why = fmt::format("SM throughput {:.1f}% of peak is at or above memory {:.1f}%", sm, mem);
    d.advice = {"use tensor cores with a lower precision (BF16/FP8) where accuracy allows",
                "cut instructions: check the instruction mix and remove redundant work",
                "the kernel is near the compute roof; a better algorithm, not tuning, moves it further"};
  } else if (mem >= t.busy_pct && dram >= std::max(l1, l2)) {
    d.bottleneck = Bottleneck::kMemory;
    d.why = fmt::format("memory throughput {:.1f}% of peak, DRAM {:.1f}% is the busiest memory unit", mem, dram);
    d.advice = {"move fewer bytes: fuse with the producer/consumer, keep data in lower precision",
                "reuse data through shared memory or L2 (tiling) to raise arithmetic intensity",
                "for decode-like GEMV shapes, batch more tokens per weight read"};
  } else if (mem >= t.busy_pct) {
    d.bottleneck = Bottleneck::kCache;
    d.why = fmt::format("memory throughput {:.1f}% of peak, with L1 {:.1f}% / L2 {:.1f}% busier than DRAM {:.1f}%", mem,
                        l1, l2, dram);
    d.advice = {"check shared-memory bank conflicts and uncoalesced accesses (MemoryWorkloadAnalysis tables)",
                "improve locality so that fewer L1/L2 transactions serve the same bytes",
                "vectorize loads (128-bit) to cut request counts"};
  } else {
    d.bottleneck = Bottleneck::kLatency;
    d.why = fmt::format("neither compute ({:.1f}%) nor memory ({:.1f}%) is near its peak; achieved occupancy {}", sm,
                        mem, Pct(e.achieved_occupancy_pct));
    if (e.achieved_occupancy_pct && *e.achieved_occupancy_pct < t.low_occupancy_pct && !e.occupancy_limiter.empty()) {
      d.advice.push_back("raise occupancy: it is limited by " + e.occupancy_limiter +
                         " (reduce its use per block, or change the block size)");
    }
    if (!e.top_stalls.empty()) {
      d.advice.push_back("the top stall is " + e.top_stalls.front().reason +
                         ": hide it with more independent work per warp (ILP) or more warps");
    }
    if (e.waves && *e.waves < 1) d.advice.emplace_back("the grid is less than one wave: launch more blocks");
    d.advice.emplace_back("overlap this kernel with others (streams) if it cannot be made to fill the GPU");
  }
  return d;
}

}  // namespace kscope::analysis
