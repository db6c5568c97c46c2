#include "analysis/kernels/roofline.h"

#include <algorithm>
#include <utility>

namespace kscope::analysis {

namespace {

struct Term {
  std::string_view metric;
  double multiplier;  // FLOPs per counted instruction: an FMA is 2, a packed half2 FMA 4
};

struct PrecisionSpec {
  std::string_view name;
  std::vector<Term> achieved;  // per elapsed cycle
  std::string_view achieved_clock;
  std::vector<Term> peak;  // per cycle
  std::string_view peak_clock;
  // Tensor paths: the per-instruction paths whose dense (sparsity off) peak is the roof. The
  // path's own peak_sustained (above) is that of its fastest instruction, sparse included
  // (on an H100 twice the dense one: 1,081,344 vs 540,672 bf16 operations per cycle, the
  // latter times the 1.83 GHz boost clock being the 989 TFLOP/s of the datasheet).
  std::vector<std::string_view> dense_paths = {};
};

const std::vector<PrecisionSpec>& Specs() {
  static const std::vector<PrecisionSpec> kSpecs{
      {"FP64",
       {{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed", 1},
        {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed", 1},
        {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", 2}},
       "smsp__cycles_elapsed.avg.per_second",
       {{"sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", 2}},
       "sm__cycles_elapsed.avg.per_second"},
      {"FP32",
       {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", 1},
        {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", 1},
        {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", 2}},
       "smsp__cycles_elapsed.avg.per_second",
       {{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", 2}},
       "sm__cycles_elapsed.avg.per_second"},
      {"FP16",
       {{"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed", 2},
        {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed", 2},
        {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", 4}},
       "smsp__cycles_elapsed.avg.per_second",
       {{"sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", 4}},
       "sm__cycles_elapsed.avg.per_second"},
      {"Tensor BF16",
       {{"sm__ops_path_tensor_src_bf16_dst_fp32.sum.per_cycle_elapsed", 1}},
       "sm__cycles_elapsed.avg.per_second",
       {{"sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained", 1}},
       "sm__cycles_elapsed.avg.per_second",
       {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off",
        "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off"}},
      {"Tensor FP16",
       {{"sm__ops_path_tensor_src_fp16.sum.per_cycle_elapsed", 1}},
       "sm__cycles_elapsed.avg.per_second",
       {{"sm__ops_path_tensor_src_fp16.sum.peak_sustained", 1}},
       "sm__cycles_elapsed.avg.per_second",
       {"sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off",
        "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off",
        "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16_sparsity_off"}},
      {"Tensor TF32",
       {{"sm__ops_path_tensor_src_tf32_dst_fp32.sum.per_cycle_elapsed", 1}},
       "sm__cycles_elapsed.avg.per_second",
       {{"sm__ops_path_tensor_src_tf32_dst_fp32.sum.peak_sustained", 1}},
       "sm__cycles_elapsed.avg.per_second",
       {"sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off",
        "sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32_sparsity_off"}},
      {"Tensor FP8",
       {{"sm__ops_path_tensor_src_fp8_sparsity_off.sum.per_cycle_elapsed", 1}},
       "sm__cycles_elapsed.avg.per_second",
       {{"sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained", 1}},
       "sm__cycles_elapsed.avg.per_second"},
  };
  return kSpecs;
}

// Sum of terms x clock, or the names that are missing.
std::optional<double> Rate(const NcuLaunch& l, const std::vector<Term>& terms, std::string_view clock,
                           std::vector<std::string>& missing) {
  double per_cycle = 0;
  bool ok = true;
  for (const Term& t : terms) {
    if (auto v = l.Number(t.metric)) {
      per_cycle += *v * t.multiplier;
    } else {
      missing.emplace_back(t.metric);
      ok = false;
    }
  }
  auto hz = l.Number(clock);
  if (!hz) {
    missing.emplace_back(clock);
    ok = false;
  }
  if (!ok) return std::nullopt;
  return per_cycle * *hz;
}

// The dense path whose peak is the roof: the one the kernel used (most operations), else the
// first one ncu collected; nullopt when none was (an older ncu: the path's own peak stays).
std::optional<std::string> DensePath(const NcuLaunch& l, const std::vector<std::string_view>& paths) {
  std::optional<std::string> chosen;
  double most = 0;
  for (auto base : paths) {
    const std::string peak = std::string(base) + ".sum.peak_sustained";
    if (!l.Number(peak)) continue;
    const double ops = l.Number(std::string(base) + ".sum").value_or(0);
    if (!chosen || ops > most) {
      chosen = peak;
      most = ops;
    }
  }
  return chosen;
}

}  // namespace

Roofline ComputeRoofline(const NcuLaunch& l) {
  Roofline r;
  auto bw = l.Number("dram__bytes.sum.per_second");
  auto bw_peak_cycle = l.Number("dram__bytes.sum.peak_sustained");
  auto dram_hz = l.Number("dram__cycles_elapsed.avg.per_second");
  if (!bw) r.missing.emplace_back("dram__bytes.sum.per_second");
  if (!bw_peak_cycle) r.missing.emplace_back("dram__bytes.sum.peak_sustained");
  if (!dram_hz) r.missing.emplace_back("dram__cycles_elapsed.avg.per_second");
  for (const PrecisionSpec& spec : Specs()) {
    std::vector<std::string> missing;
    auto achieved = Rate(l, spec.achieved, spec.achieved_clock, missing);
    std::vector<Term> peak_terms = spec.peak;
    const std::optional<std::string> dense = DensePath(l, spec.dense_paths);  // outlives peak_terms' views
    if (dense) peak_terms = {{*dense, 1}};
    auto peak = Rate(l, peak_terms, spec.peak_clock, missing);
    if (!achieved || !peak || !bw || !bw_peak_cycle || !dram_hz) {
      r.missing_precisions.emplace_back(spec.name);
      for (auto& m : missing) {
        if (std::find(r.missing.begin(), r.missing.end(), m) == r.missing.end()) r.missing.push_back(std::move(m));
      }
      continue;
    }
    RooflinePoint p;
    p.precision = spec.name;
    p.achieved_flops = *achieved;
    p.peak_flops = *peak;
    p.dram_bytes_per_s = *bw;
    p.peak_dram_bytes_per_s = *bw_peak_cycle * *dram_hz;
    p.intensity = *bw > 0 ? *achieved / *bw : 0;
    p.ridge = p.peak_dram_bytes_per_s > 0 ? p.peak_flops / p.peak_dram_bytes_per_s : 0;
    p.roof = *bw > 0 ? std::min(p.peak_flops, p.intensity * p.peak_dram_bytes_per_s) : p.peak_flops;
    r.points.push_back(p);
  }
  return r;
}

const std::vector<std::string>& RooflineMetrics() {
  static const std::vector<std::string> kMetrics = [] {
    std::vector<std::string> m = {"dram__bytes.sum.per_second", "dram__bytes.sum.peak_sustained",
                                  "dram__cycles_elapsed.avg.per_second"};
    auto add = [&](std::string_view metric) {
      if (std::find(m.begin(), m.end(), metric) == m.end()) m.emplace_back(metric);
    };
    for (const PrecisionSpec& spec : Specs()) {
      for (const Term& t : spec.achieved) add(t.metric);
      add(spec.achieved_clock);
      for (const Term& t : spec.peak) add(t.metric);
      add(spec.peak_clock);
      for (std::string_view path : spec.dense_paths) add(std::string(path) + ".sum.peak_sustained");
    }
    return m;
  }();
  return kMetrics;
}

const RooflinePoint* MainPoint(const Roofline& r) {
  const RooflinePoint* best = nullptr;
  for (const auto& p : r.points) {
    if (p.achieved_flops > 0 && (best == nullptr || p.PercentOfPeak() > best->PercentOfPeak())) best = &p;
  }
  return best;
}

}  // namespace kscope::analysis
