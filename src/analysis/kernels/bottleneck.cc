#include "analysis/kernels/bottleneck.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/names/kernel_names.h"

namespace kscope::analysis {

namespace {

constexpr std::string_view kSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr std::string_view kL1 = "l1tex__throughput.avg.pct_of_peak_sustained_active";
constexpr std::string_view kL2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr std::string_view kL2Hit = "lts__t_sector_hit_rate.pct";

std::string Pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : "n/a"; }

// "long_scoreboard 49.1% of active warps (3 reasons measured, 60.2% in all)".
std::string StallsText(const Evidence& e) {
  if (e.top_stalls.empty() || !e.stall_total) return "no stall metrics";
  const Stall& top = e.top_stalls.front();
  return fmt::format("top stall {} {} ({} reasons measured, {} in all)", top.reason,
                     StallValueText(e.stall_form, top.value), e.stall_reasons,
                     StallValueText(e.stall_form, *e.stall_total));
}

std::string StallMetrics(StallForm form) {
  return form == StallForm::kPerIssue ? "smsp__average_warps_issue_stalled_*_per_issue_active.ratio"
                                      : "smsp__warp_issue_stalled_*_per_warp_active.pct";
}

void Launch(Diagnosis& d, double us, double sm, double mem) {
  d.why = fmt::format("{:.2f} us with {:.2f} waves: the GPU is barely filled (SM {:.1f}%, memory {:.1f}%)", us,
                      *d.evidence.waves, sm, mem);
  d.basis.insert(d.basis.end(), {"gpu__time_duration.sum", "launch__waves_per_multiprocessor"});
  d.advice = {"fuse this kernel with its neighbours (torch.compile, a fused kernel) to pay the launch once",
              "capture the sequence in a CUDA graph to cut launch overhead",
              "give it more work per launch (a bigger batch, or batching small ops)"};
}

void Mixed(Diagnosis& d, double sm, double mem) {
  d.why =
      fmt::format("SM {:.1f}% and memory {:.1f}% of peak are both high: the kernel is close to both roofs", sm, mem);
  d.advice = {
      "the kernel is well balanced and near the hardware's limits; a better algorithm (fewer bytes and "
      "fewer instructions), not tuning, moves it further",
      "lower precision (BF16/FP8) cuts both bytes moved and instructions where accuracy allows"};
}

void Compute(Diagnosis& d, double sm, double mem) {
  d.why = fmt::format("SM throughput {:.1f}% of peak, memory {:.1f}%", sm, mem);
  d.advice = {"use tensor cores with a lower precision (BF16/FP8) where accuracy allows",
              "cut instructions: check the instruction mix and remove redundant work",
              "the kernel is near the compute roof; a better algorithm, not tuning, moves it further"};
}

// A memory-bound kernel whose DRAM throughput is near its roof (kNearRoofPct) has nothing to
// gain from tuning its access pattern (a copy at 88% of DRAM peak has no reuse to tile for):
// only less work helps. Its advice says so instead of the class's.
constexpr double kNearRoofPct = 80;
void NearRoof(Diagnosis& d, double sm, const ClassifyThresholds& t) {
  const Evidence& e = d.evidence;
  const bool memory = d.bottleneck == Bottleneck::kMemory || d.bottleneck == Bottleneck::kCache;
  if (!memory || !e.dram_pct || *e.dram_pct < kNearRoofPct || sm >= t.busy_pct) return;
  d.advice = {fmt::format("the kernel already moves bytes at {:.1f}% of DRAM peak: tuning its accesses gains little; "
                          "move fewer bytes instead",
                          *e.dram_pct),
              "fuse it with its producer or consumer so the data is not written and read back (a copy or cast "
              "folded into the kernel that uses it)",
              "keep the data in a lower precision (BF16/FP8) where accuracy allows"};
}

// Memory-bound (the class already decided by Classify): by DRAM, with or without L2 serving
// it, or by the on-chip memories (L1 and shared memory, L2).
void Memory(Diagnosis& d, double mem, const ClassifyThresholds& t) {
  const Evidence& e = d.evidence;
  if (e.dram_pct) d.basis.push_back(e.dram_metric);
  if (d.bottleneck == Bottleneck::kOnChip) {
    if (e.l1_pct) d.basis.emplace_back(kL1);
    if (e.l2_pct) d.basis.emplace_back(kL2);
    d.why = fmt::format(
        "memory throughput {:.1f}% of peak while DRAM is at {} (L1 {}, L2 {}): the on-chip memories "
        "are the limit",
        mem, Pct(e.dram_pct), Pct(e.l1_pct), Pct(e.l2_pct));
    d.advice = {"check shared-memory bank conflicts and uncoalesced accesses (MemoryWorkloadAnalysis tables)",
                "improve locality so that fewer L1/L2 transactions serve the same bytes",
                "vectorize loads (128-bit) to cut request counts"};
    return;
  }
  if (e.l2_hit_pct) d.basis.emplace_back(kL2Hit);
  if (d.bottleneck == Bottleneck::kCache) {
    d.why = fmt::format(
        "DRAM {:.1f}% of peak while only {:.1f}% of L2 lookups hit (below {:.0f}%): the bytes come "
        "from DRAM, not from the caches",
        *e.dram_pct, *e.l2_hit_pct, t.low_l2_hit_pct);
    d.advice = {
        "reuse data while it is in cache: tile the loops (shared memory, L2-sized blocks), reorder the "
        "traversal so neighbouring blocks share their inputs",
        "fuse with the producer/consumer so intermediates never go back to DRAM",
        "a kernel that reads each byte once (a copy, a reduction) has no reuse to gain: then it is simply "
        "DRAM-bound, move fewer bytes (lower precision)"};
    return;
  }
  d.why = fmt::format("DRAM {:.1f}% of peak (L2 hit rate {})", *e.dram_pct, Pct(e.l2_hit_pct));
  d.advice = {"move fewer bytes: fuse with the producer/consumer, keep data in lower precision",
              "reuse data through shared memory or L2 (tiling) to raise arithmetic intensity",
              "for decode-like GEMV shapes, batch more tokens per weight read"};
}

// A vendor kernel (RegistersByDesign) waits as its library wrote it: its registers, block size
// and instruction schedule are not the user's to tune. What the user controls is what the
// library is asked: the shapes, the precision, and the work per call.
void LibraryLatency(Diagnosis& d, bool low_occupancy) {
  const Evidence& e = d.evidence;
  if (low_occupancy) {
    d.advice.push_back("its occupancy (limited by " +
                       (e.occupancy_limiter.empty() ? "its design" : e.occupancy_limiter) +
                       ") is the library's choice for this shape, not register pressure to tune: its code is not "
                       "yours to change");
  }
  d.advice.emplace_back(
      "ask the library for more work or an easier shape: batch more rows per call, pad dimensions to multiples of "
      "64, use BF16/TF32 so that a tensor-core kernel serves it");
  if (e.waves && *e.waves < 1) {
    d.advice.emplace_back("the grid is less than one wave: the problem is too small to fill the GPU; batch calls");
  }
  d.advice.emplace_back("overlap this kernel with others (streams) if it cannot be made to fill the GPU");
}

void Latency(Diagnosis& d, double sm, double mem, const ClassifyThresholds& t, bool library_kernel) {
  const Evidence& e = d.evidence;
  const std::string occupancy = e.achieved_occupancy_pct ? "achieved occupancy " + Pct(e.achieved_occupancy_pct)
                                : e.theoretical_occupancy_pct
                                    ? "theoretical occupancy " + Pct(e.theoretical_occupancy_pct)
                                    : std::string("occupancy not measured");
  d.why = fmt::format("neither compute ({:.1f}%) nor memory ({:.1f}%) is near its peak; {}; {}", sm, mem, occupancy,
                      StallsText(e));
  if (e.achieved_occupancy_pct) d.basis.emplace_back("sm__warps_active.avg.pct_of_peak_sustained_active");
  if (!e.achieved_occupancy_pct && e.theoretical_occupancy_pct) {
    d.basis.emplace_back("sm__maximum_warps_per_active_cycle_pct");
  }
  if (!e.top_stalls.empty()) d.basis.push_back(StallMetrics(e.stall_form));
  const std::optional<double> occ = e.achieved_occupancy_pct ? e.achieved_occupancy_pct : e.theoretical_occupancy_pct;
  if (library_kernel) {
    LibraryLatency(d, occ && *occ < t.low_occupancy_pct);
    return;
  }
  if (occ && *occ < t.low_occupancy_pct && !e.occupancy_limiter.empty()) {
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

}  // namespace

std::string_view BottleneckName(Bottleneck b) {
  switch (b) {
    case Bottleneck::kCompute: return "compute";
    case Bottleneck::kMemory: return "memory (DRAM)";
    case Bottleneck::kOnChip: return "memory (L1/L2)";
    case Bottleneck::kCache: return "cache inefficiency";
    case Bottleneck::kMixed: return "mixed";
    case Bottleneck::kLatency: return "latency/occupancy";
    case Bottleneck::kLaunch: return "launch";
    case Bottleneck::kUnknown: return "unknown";
  }
  return "unknown";
}

ClassFigures ClassFiguresOf(const Evidence& e) {
  return {e.duration_ns, e.sm_pct, e.memory_pct, e.dram_pct, e.l2_hit_pct, e.waves};
}

// In this order: launch (short, less than a wave, nothing busy), mixed (SM and memory both
// busy), compute, memory (DRAM, then whether L2 serves it; or L1/L2), latency/occupancy. A
// streaming kernel's L2 throughput can read above its DRAM's; DRAM near its peak is still
// what limits it.
Bottleneck Classify(const ClassFigures& f, const ClassifyThresholds& t) {
  if (!f.sm_pct || !f.memory_pct) return Bottleneck::kUnknown;
  const double sm = *f.sm_pct, mem = *f.memory_pct;
  const bool idle = sm < t.busy_pct && mem < t.busy_pct;
  if (idle && f.duration_ns && f.waves && *f.duration_ns / 1000.0 < t.launch_us && *f.waves < t.launch_waves) {
    return Bottleneck::kLaunch;
  }
  if (sm >= t.busy_pct && mem >= t.busy_pct) return Bottleneck::kMixed;
  if (sm >= t.busy_pct) return Bottleneck::kCompute;
  if (mem >= t.busy_pct) {
    if (!f.dram_pct || *f.dram_pct < t.busy_pct) return Bottleneck::kOnChip;
    if (f.l2_hit_pct && *f.l2_hit_pct < t.low_l2_hit_pct) return Bottleneck::kCache;
    return Bottleneck::kMemory;
  }
  return Bottleneck::kLatency;
}

Diagnosis Diagnose(const NcuLaunch& l, const ClassifyThresholds& t) {
  Diagnosis d;
  d.evidence = GatherEvidence(l);
  const Evidence& e = d.evidence;
  if (!e.sm_pct) d.missing.emplace_back(kSm);
  if (!e.memory_pct) {
    d.missing.emplace_back(
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed or "
        "dram__throughput.avg.pct_of_peak_sustained_elapsed");
  }
  if (!d.missing.empty()) {
    d.why =
        "not enough metrics: collect the SpeedOfLight section (ncu --section SpeedOfLight), or at least SM and "
        "DRAM throughput (ncu --metrics " +
        std::string(kSm) + ",dram__throughput.avg.pct_of_peak_sustained_elapsed)";
    return d;
  }
  const double sm = *e.sm_pct, mem = *e.memory_pct;
  d.basis = {std::string(kSm), e.memory_metric};
  d.bottleneck = Classify(ClassFiguresOf(e), t);
  switch (d.bottleneck) {
    case Bottleneck::kLaunch: Launch(d, *e.duration_ns / 1000.0, sm, mem); break;
    case Bottleneck::kMixed: Mixed(d, sm, mem); break;
    case Bottleneck::kCompute: Compute(d, sm, mem); break;
    case Bottleneck::kMemory:
    case Bottleneck::kOnChip:
    case Bottleneck::kCache: Memory(d, mem, t); break;
    case Bottleneck::kLatency:
    case Bottleneck::kUnknown: Latency(d, sm, mem, t, RegistersByDesign(IdentifyKernel(l.key.name).library)); break;
  }
  NearRoof(d, sm, t);
  std::sort(d.basis.begin(), d.basis.end());
  d.basis.erase(std::unique(d.basis.begin(), d.basis.end()), d.basis.end());
  return d;
}

}  // namespace kscope::analysis
