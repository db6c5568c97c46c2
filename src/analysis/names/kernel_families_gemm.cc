// GEMM families of cuBLAS and CUTLASS, from names that spell their configuration out:
//   nvjet_sm90_tst_64x8_64x16_4x1_v_bz_splitK_TNT        cuBLAS on Hopper and later
//   sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_..._cublas
//   ampere_sgemm_128x64_nn, volta_h884gemm_64x128_ldg8_nn cuBLAS before nvjet
//   cutlass_80_simt_sgemm_128x32_8x5_nn_align1            CUTLASS's generated names
// None of these names is documented; what each part means is read off the names themselves
// and said where it is a guess.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>

#include "analysis/names/kernel_families.h"
#include "analysis/names/kernel_name_normalize.h"

namespace kscope::analysis {

namespace {

bool AllOf(std::string_view s, std::string_view chars) {
  return !s.empty() && s.find_first_not_of(chars) == std::string_view::npos;
}

// "64x16" after the tile: the K extent of a tile and the number of pipeline stages.
void AddTileKAndStages(std::vector<KernelFeature>& f, std::string_view shape) {
  const auto parts = SplitOn(shape, 'x');
  if (parts.size() != 2) return AddFeature(f, "k_stages", shape);
  AddFeature(f, "tile_k", parts[0]);
  AddFeature(f, "stages", parts[1]);
}

// nvjet names its types by letters in the order A/B, compute (accumulate), D: s fp32,
// d fp64, h fp16 (BLAS's letters), and t bf16 as observed: the bf16 Llama in the devset runs
// only nvjet_sm90_tst_* GEMMs, and the cublasLt split-K reduce kernel that follows them is
// instantiated with float compute and __nv_bfloat16 data. Other letters stay undecoded.
void AddNvjetTypes(std::vector<KernelFeature>& f, std::string_view letters) {
  auto type = [](char c) -> std::string_view {
    switch (c) {
      case 's': return "fp32";
      case 'd': return "fp64";
      case 'h': return "fp16";
      case 't': return "bf16";
      default: return "";
    }
  };
  AddFeature(f, "dtype", letters);
  if (letters.size() != 3 || type(letters[0]).empty() || type(letters[1]).empty() || type(letters[2]).empty()) return;
  AddFeature(f, "input", type(letters[0]));
  AddFeature(f, "compute", type(letters[1]));
  AddFeature(f, "output", type(letters[2]));
}

// Parts in order: arch, type letters, tile MxN, tile K x stages, cluster; h or v (the order
// tiles are walked in, it seems: raster), coopA/coopB (schedule), splitK, and the layout of
// A, B and D last (T transposed, N not). Parts not decoded (bz) are kept as options.
KernelFamily NvjetFamily(std::string_view name) {
  KernelFamily f{"nvjet_gemm", {{"op", "gemm"}}};
  std::string_view arch, letters, raster, schedule, split, layout;
  std::vector<std::string_view> shapes;
  std::string options;
  const auto tokens = SplitOn(name, '_');
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string_view t = tokens[i];
    if (IsArch(t)) {
      arch = t;
    } else if (IsShape(t)) {
      shapes.push_back(t);
    } else if (t == "h" || t == "v") {
      raster = t;
    } else if (t == "splitK") {
      split = "yes";
    } else if (t.starts_with("coop")) {
      schedule = t;
    } else if (i + 1 == tokens.size() && AllOf(t, "TN")) {
      layout = t;
    } else if (shapes.empty() && letters.empty() && AllOf(t, "abcdefghijklmnopqrstuvwxyz")) {
      letters = t;
    } else {
      options += (options.empty() ? "" : ",") + std::string(t);
    }
  }
  AddFeature(f.features, "arch", arch);
  AddNvjetTypes(f.features, letters);
  if (!shapes.empty()) AddFeature(f.features, "tile", shapes[0]);
  if (shapes.size() > 1) AddTileKAndStages(f.features, shapes[1]);
  if (shapes.size() > 2) AddFeature(f.features, "cluster", shapes[2]);
  AddFeature(f.features, "raster", raster);
  AddFeature(f.features, "schedule", schedule);
  AddFeature(f.features, "split_k", split);
  AddFeature(f.features, "layout", layout);
  AddFeature(f.features, "options", options);
  return f;
}

// CUTLASS's and cuBLAS's older names: [arch] [kind] [types] <math>gemm [types] <tile>
// [<tile K>x<stages>] [options] <layout> [align<N>]. The math prefix says the instruction
// and accumulator (s: fp32 SIMT FMA; s16816: fp32 accumulate, 16x8x16 MMA).
struct GemmName {
  std::string arch, kind, math, op, dtype, tile, k_stages, layout, align, options;
};

GemmName ParseGemmName(const std::vector<std::string_view>& tokens, size_t start) {
  constexpr std::array<std::string_view, 5> kOps = {"gemm", "gemv", "fprop", "dgrad", "wgrad"};
  constexpr std::array<std::string_view, 3> kKinds = {"simt", "tensorop", "wmma"};
  GemmName g;
  auto append = [](std::string& list, std::string_view t) { list += (list.empty() ? "" : ",") + std::string(t); };
  for (size_t i = start; i < tokens.size(); ++i) {
    const std::string_view t = tokens[i];
    if (t.empty()) continue;
    const auto op = std::find_if(kOps.begin(), kOps.end(), [&](std::string_view o) { return t.ends_with(o); });
    if (i == start && AllOf(t, "0123456789")) {
      g.arch = "sm" + std::string(t);
    } else if (std::find(kKinds.begin(), kKinds.end(), t) != kKinds.end()) {
      g.kind += (g.kind.empty() ? "" : "_") + std::string(t);  // wmma_tensorop
    } else if (op != kOps.end() && g.op.empty()) {
      g.op = *op;
      g.math = t.substr(0, t.size() - op->size());
    } else if (IsShape(t) && g.tile.empty()) {
      g.tile = t;
    } else if (IsShape(t) && g.k_stages.empty()) {
      g.k_stages = t;
    } else if (AllOf(t, "nt") && t.size() >= 2 && t.size() <= 3 && g.layout.empty()) {
      g.layout = t;
    } else if (t.starts_with("align") && AllOf(t.substr(5), "0123456789")) {
      g.align = t.substr(5);
    } else if (g.tile.empty() && (t.starts_with("f") || t.starts_with("bf") || t.starts_with("s8") || t == "tf32")) {
      if (g.dtype.find(t) == std::string::npos) append(g.dtype, t);
    } else {
      append(g.options, t);
    }
  }
  return g;
}

KernelFamily GemmFamily(std::string family, const GemmName& g) {
  KernelFamily f{std::move(family), {}};
  AddFeature(f.features, "op", g.op);
  AddFeature(f.features, "arch", g.arch);
  AddFeature(f.features, "math", g.math);
  AddFeature(f.features, "dtype", g.dtype);
  AddFeature(f.features, "tile", g.tile);
  if (!g.k_stages.empty()) AddTileKAndStages(f.features, g.k_stages);
  AddFeature(f.features, "layout", g.layout);
  AddFeature(f.features, "align", g.align);
  AddFeature(f.features, "options", g.options);
  return f;
}

}  // namespace

std::optional<KernelFamily> CublasFamily(const KernelNameParts& parts) {
  const std::string& n = parts.name;
  if (n.starts_with("nvjet")) return NvjetFamily(n);
  if (n.starts_with("gemv")) return KernelFamily{"gemv", {{"op", "gemv"}, {"variant", n}}};
  if (parts.qualified.starts_with("gemv")) {  // gemvx::kernel: the namespace is the variant
    return KernelFamily{"gemv", {{"op", "gemv"}, {"variant", parts.qualified.substr(0, parts.qualified.find("::"))}}};
  }
  const auto tokens = SplitOn(n, '_');
  if (tokens.size() > 2 && IsArch(tokens[0]) && tokens[1] == "xmma") {
    auto g = ParseGemmName(tokens, 2);
    for (const std::string_view t : tokens) {
      if (t.starts_with("tilesize")) g.tile = t.substr(8);
    }
    g.arch = tokens[0];
    g.options.clear();  // execute, segment, k, off, kernel, 5x, cublas: not decoded
    return GemmFamily("xmma_" + g.op, g);
  }
  if (n.find("gemm") != std::string::npos && tokens.size() > 2) {
    auto g = ParseGemmName(tokens, 1);
    g.arch = tokens[0];
    return GemmFamily("cublas_gemm", g);
  }
  return std::nullopt;
}

// cutlass_80_simt_sgemm_128x32_8x5_nn_align1: family cutlass_simt_gemm. Convolutions
// (cutlass_tensorop_f16_s16816fprop_optimized_f16_128x128_32x5_nhwc_align8) are implicit
// GEMMs by direction, as cuDNN's are: conv_fprop_implicit_gemm, the kind a feature.
std::optional<KernelFamily> CutlassNameFamily(std::string_view name) {
  auto g = ParseGemmName(SplitOn(name, '_'), 1);
  if (g.op.empty()) return std::nullopt;
  if (g.op == "fprop" || g.op == "dgrad" || g.op == "wgrad") {
    std::string variant, options;  // optimized or analytic iterators; the tensor layout
    for (const std::string_view o : SplitOn(g.options, ',')) {
      if (o == "nhwc" || o == "ncxhwx") {
        g.layout = o;
      } else {
        std::string& into = (o == "optimized" || o == "analytic") ? variant : options;
        into += (into.empty() ? "" : "_") + std::string(o);
      }
    }
    g.options = options;                                                           // unity_stride
    if (g.dtype == "f16" || g.dtype == "f32") g.dtype = "fp" + g.dtype.substr(1);  // as the templates' fp16
    auto f = GemmFamily("conv_" + g.op + "_implicit_gemm", g);
    AddFeature(f.features, "kind", g.kind);
    AddFeature(f.features, "variant", variant);
    return f;
  }
  return GemmFamily("cutlass_" + (g.kind.empty() ? "" : g.kind + "_") + g.op, g);
}

}  // namespace kscope::analysis
