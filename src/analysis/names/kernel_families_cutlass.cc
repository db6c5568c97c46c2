// Families of CUTLASS kernels. CUTLASS launches every kernel through a wrapper
// (cutlass::Kernel<...>, cutlass::Kernel2<...>, cutlass::device_kernel<...>) whose template
// argument is the kernel itself: a generated name (cutlass_80_simt_sgemm_..., read by
// kernel_families_gemm.cc) or a template, possibly inside a caller's own wrapper
// (at::cuda::detail::enable_3x_kernel_for_sm9x<GemmUniversal<...>>). The templates read here:
//   GemmUniversal<GroupProblemShape<...>, CollectiveMma<Mainloop<stages, cluster, schedule>,
//     tile, A, strideA, B, strideB, TiledMMA<MMA_Atom<MMA_64x256x16_F32BF16BF16_SS<...>>>...>>
//                                        cutlass_grouped_gemm (MoE experts), else cutlass_gemm
//   ImplicitGemmConvolution<ImplicitGemmMultistage<GemmShape<tile>, Conv2dWgrad...Optimized<...>,
//     ... MmaTensorOp<GemmShape<warp tile>, ...> ... Mma<GemmShape<instruction>> ...>>
//                                        conv_wgrad_implicit_gemm (and fprop, dgrad)
//   ReduceSplitK<MatrixShape<...>, LinearCombination<output, ...>, ...>   split_k_reduce
// cuDNN ships its own copy of CUTLASS in namespace cutlass__5x_cudnn: the feature shipped_in
// says so.
#include <array>
#include <optional>
#include <string>
#include <utility>

#include "analysis/names/kernel_families.h"
#include "analysis/names/kernel_name_normalize.h"

namespace kscope::analysis {

namespace {

// GemmShape<128,64,32> or tuple<C<128>,C<256>,C<64>> as 128x64x32; empty for anything else.
std::string ShapeOf(std::string_view arg) {
  std::string out;
  for (std::string_view a : KeyTemplateArgs(arg)) {
    if (KeyHead(a) == "C") {
      const auto c = KeyTemplateArgs(a);
      if (c.size() != 1) return "";
      a = c[0];
    }
    if (a.empty() || a.find_first_not_of("0123456789") != std::string_view::npos) return "";
    out += (out.empty() ? "" : "x") + std::string(a);
  }
  return out;
}

// CUTLASS 3 GEMMs: the schedule is the kernel tag's last word (KernelPtrArrayTmaWarpSpecialized
// Cooperative or Pingpong), the architecture the mainloop's (MainloopSm90...).
std::optional<KernelFamily> GemmUniversalFamily(std::string_view key) {
  const auto gemm = ArgsOf(key, "GemmUniversal");
  if (!gemm || gemm->size() < 2) return std::nullopt;
  const bool grouped = KeyHead((*gemm)[0]) == "GroupProblemShape";
  KernelFamily f{grouped ? "cutlass_grouped_gemm" : "cutlass_gemm", {{"op", "gemm"}}};
  const auto mma = KeyTemplateArgs((*gemm)[1]);  // CollectiveMma<...>
  if (mma.size() < 5) return f;
  const std::string_view mainloop = KeyHead(mma[0]);
  if (const size_t sm = mainloop.find("Sm"); sm != std::string_view::npos) {
    const size_t end = mainloop.find_first_not_of("0123456789", sm + 2);
    AddFeature(f.features, "arch", "sm" + std::string(mainloop.substr(sm + 2, end - sm - 2)));
  }
  const auto loop = KeyTemplateArgs(mma[0]);
  if (loop.size() == 3) {
    const std::string_view tag = loop[2];
    for (const std::string_view schedule : {"Cooperative", "Pingpong"}) {
      if (tag.ends_with(schedule)) AddFeature(f.features, "schedule", schedule);
    }
  }
  AddFeature(f.features, "dtype", DtypeName(mma[2]));
  AddFeature(f.features, "tile", ShapeOf(mma[1]));
  if (loop.size() == 3) {
    AddFeature(f.features, "cluster", ShapeOf(loop[1]));
    AddFeature(f.features, "stages", loop[0]);
  }
  for (size_t atom = key.find("MMA_"); atom != std::string_view::npos; atom = key.find("MMA_", atom + 4)) {
    const auto words = SplitOn(key.substr(atom, key.find_first_of("<,>", atom) - atom), '_');
    if (words.size() >= 3 && IsShape(words[1])) {  // MMA_64x256x16_F32BF16BF16_SS, not MMA_Atom
      AddFeature(f.features, "mma", words[1]);
      AddFeature(f.features, "mma_types", words[2]);
      break;
    }
  }
  return f;
}

std::optional<KernelFamily> ConvFamily(std::string_view key) {
  const auto conv = ArgsOf(key, "ImplicitGemmConvolution");
  if (!conv || conv->empty()) return std::nullopt;
  const auto mainloop = KeyTemplateArgs((*conv)[0]);  // ImplicitGemmMultistage<tile, iterator A, ...>
  if (mainloop.size() < 2) return std::nullopt;
  const std::string_view iterator = KeyHead(mainloop[1]);  // Conv2dWgradOutputGradientTileAccessIteratorOptimized
  std::string direction;
  for (const std::string_view d : {"Fprop", "Dgrad", "Wgrad"}) {
    if (iterator.starts_with("Conv2d") && iterator.substr(6).starts_with(d)) {
      direction = std::string(1, static_cast<char>(d[0] - 'A' + 'a')) + std::string(d.substr(1));
    }
  }
  if (direction.empty()) return std::nullopt;
  KernelFamily f{"conv_" + direction + "_implicit_gemm", {{"op", direction}}};
  for (const std::string_view variant : {"Optimized", "Analytic"}) {
    if (iterator.ends_with(variant))
      AddFeature(f.features, "variant", variant == "Optimized" ? "optimized" : "analytic");
  }
  const auto iterator_args = KeyTemplateArgs(mainloop[1]);
  if (iterator_args.size() > 1) AddFeature(f.features, "dtype", DtypeName(iterator_args[1]));
  AddFeature(f.features, "tile", ShapeOf(mainloop[0]));
  if (const auto warp = ArgsOf(key, "MmaTensorOp"); warp && !warp->empty()) {
    AddFeature(f.features, "warp_tile", ShapeOf((*warp)[0]));
  }
  if (const auto mma = ArgsOf(key, "Mma"); mma && !mma->empty()) AddFeature(f.features, "mma", ShapeOf((*mma)[0]));
  return f;
}

std::optional<KernelFamily> SplitKReduceFamily(std::string_view key) {
  const auto reduce = ArgsOf(key, "ReduceSplitK");
  if (!reduce || reduce->size() < 2) return std::nullopt;
  KernelFamily f{"split_k_reduce", {{"op", "split_k_reduce"}}};
  const auto epilogue = KeyTemplateArgs((*reduce)[1]);  // LinearCombination<output, count, accumulator, ...>
  if (!epilogue.empty()) AddFeature(f.features, "dtype", DtypeName(epilogue[0]));
  AddFeature(f.features, "shape", ShapeOf((*reduce)[0]));
  return f;
}

}  // namespace

std::optional<KernelFamily> CutlassFamily(const KernelNameParts& parts) {
  std::optional<KernelFamily> f;
  if (parts.name.starts_with("cutlass_")) {
    f = CutlassNameFamily(parts.name);
  } else if (!parts.args.empty() && parts.args.front().starts_with("cutlass_")) {
    f = CutlassNameFamily(parts.args.front());
  } else {
    f = GemmUniversalFamily(parts.key);
    if (!f) f = ConvFamily(parts.key);
    if (!f) f = SplitKReduceFamily(parts.key);
  }
  if (!f && !parts.args.empty()) {  // a template not read above: named by what the wrapper wraps
    const std::string& inner = parts.args.front();
    f = KernelFamily{"cutlass:" + std::string(KeyHead(inner)), {}};
    AddFeature(f->features, "template", inner.substr(KeyHead(inner).size()));
  }
  if (f && parts.qualified.starts_with("cutlass__") && parts.qualified.find("cudnn") != std::string::npos) {
    AddFeature(f->features, "shipped_in", "cuDNN");
  }
  return f;
}

}  // namespace kscope::analysis
