// Roofline position of a profiled launch, per precision, computed as ncu's roofline
// sections compute it (SpeedOfLight_RooflineChart and the hierarchical charts): achieved
// work per cycle times the clock, the roof from ncu's own peak metrics of that GPU.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/kernels/ncu_launches.h"

namespace kscope::analysis {

struct RooflinePoint {
  std::string_view precision;   // "FP64", "FP32", "FP16", "Tensor BF16", ... (tensor: ncu operations)
  double achieved_flops = 0;    // FLOP/s (tensor: ncu's tensor operations per second)
  double peak_flops = 0;        // FLOP/s, the compute roof
  double dram_bytes_per_s = 0;  // achieved DRAM bandwidth
  double peak_dram_bytes_per_s = 0;
  double intensity = 0;  // FLOP per DRAM byte (0 when no DRAM traffic)
  double ridge = 0;      // intensity where the memory roof meets the compute roof
  double roof = 0;       // attainable FLOP/s at this intensity: min(peak, intensity x bandwidth)
  [[nodiscard]] double PercentOfPeak() const { return peak_flops > 0 ? 100.0 * achieved_flops / peak_flops : 0; }
  [[nodiscard]] double PercentOfRoof() const { return roof > 0 ? 100.0 * achieved_flops / roof : 0; }
  [[nodiscard]] bool MemoryBound() const { return intensity < ridge; }
};

struct Roofline {
  std::vector<RooflinePoint> points;            // the precisions whose metrics were collected
  std::vector<std::string> missing;             // metrics missing for a full roofline
  std::vector<std::string> missing_precisions;  // precisions without a point for lack of them
  // Which ncu sections would provide the missing metrics.
  static constexpr std::string_view kSections =
      "SpeedOfLight_RooflineChart (FP32/FP64), SpeedOfLight_HierarchicalHalfRooflineChart (FP16), "
      "SpeedOfLight_HierarchicalTensorRooflineChart (tensor paths); ncu --set roofline collects them all, and kscope "
      "profile's FLOP counters (ncu.flops=on, the default) do too";
};

Roofline ComputeRoofline(const NcuLaunch& launch);

// The precision that did the most work relative to its peak: where the launch sits on the
// roofline (`kscope kernels`' Roofline and % of Roof); nullptr when it did no FP work.
const RooflinePoint* MainPoint(const Roofline& roofline);

// Every metric ComputeRoofline reads, each once: what a profile collects for a full roofline.
const std::vector<std::string>& RooflineMetrics();

}  // namespace kscope::analysis
