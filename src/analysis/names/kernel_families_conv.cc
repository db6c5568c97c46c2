// cuDNN's convolution kernels (its xmma library), one family per direction and algorithm:
//   sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32
//     _warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn     conv_fprop_implicit_gemm
//   sm80_xmma_wgrad_implicit_gemm_indexed_..._tilesize64x32x64_stage5_warpsize2x2x1_g1
//     _tensor16x8x16_execute_split_k_kernel__5x_cudnn                   conv_wgrad_implicit_gemm
//   sm90_xmma_fprop_image_first_layer_f16f16_f32_f16_nhwckrsc_nhwc_hmma_k64c4r7s7_stride2x2
//     _tile16x64x64_tensor1688_execute_kernel_kernel__5x_cudnn           conv_fprop_first_layer
// The variant of the algorithm (indexed, indexed_wo_smem), data types, layouts, tile, stages,
// warps, MMA shape, alignment, filter shape and the split of K are features. The names are
// not documented: data types and layouts are kept as the name spells them; what a part means
// is read off the names (tilesize, stage, warpsize say it), and the parts not understood (g1,
// strided) are kept as options.
#include <optional>
#include <string>

#include "analysis/names/kernel_families.h"

namespace kscope::analysis {

namespace {

bool IsLayout(std::string_view t) { return !t.empty() && t.find_first_not_of("nhwckrsc") == std::string_view::npos; }

// f16f16, f32, bf16: a type spelled as letters and bit widths.
bool IsTypes(std::string_view t) {
  if (t.empty() || (t[0] != 'f' && !t.starts_with("bf") && !t.starts_with("tf") && t[0] != 'i')) return false;
  return t.find_first_of("0123456789") != std::string_view::npos &&
         t.find_first_not_of("fbti0123456789") == std::string_view::npos;
}

void Append(std::string& list, std::string_view item, std::string_view separator = ",") {
  list += (list.empty() ? "" : std::string(separator)) + std::string(item);
}

// The text after `prefix` when `t` is prefix + a shape (tilesize128x64x32 -> 128x64x32).
std::string_view ShapeAfter(std::string_view t, std::string_view prefix) {
  if (!t.starts_with(prefix) || !IsShape(t.substr(prefix.size()))) return {};
  return t.substr(prefix.size());
}

}  // namespace

std::optional<KernelFamily> XmmaConvFamily(std::string_view name) {
  const auto tokens = SplitOn(name, '_');
  if (tokens.size() < 5 || !IsArch(tokens[0]) || tokens[1] != "xmma") return std::nullopt;
  const std::string_view direction = tokens[2];
  if (direction != "fprop" && direction != "dgrad" && direction != "wgrad") return std::nullopt;
  std::string algorithm, dtype, layout, tile, stages, warps, warp_groups, mma, align, filter, stride, split, options;
  size_t i = 3;
  for (; i < tokens.size() && !IsTypes(tokens[i]); ++i) Append(algorithm, tokens[i], "_");
  for (; i < tokens.size(); ++i) {
    const std::string_view t = tokens[i];
    std::string_view shape;
    if (IsTypes(t)) {
      Append(dtype, t);
    } else if (IsLayout(t)) {
      Append(layout, t);
    } else if (!(shape = ShapeAfter(t, "tilesize")).empty() || !(shape = ShapeAfter(t, "tile")).empty()) {
      tile = shape;
    } else if (t.starts_with("stage") && t.size() > 5 &&
               t.find_first_not_of("0123456789", 5) == std::string_view::npos) {
      stages = t.substr(5);
    } else if (!(shape = ShapeAfter(t, "warpgroupsize")).empty()) {
      warp_groups = shape;
    } else if (!(shape = ShapeAfter(t, "warpsize")).empty()) {
      warps = shape;
    } else if (t.starts_with("tensor") && t.size() > 6) {
      mma = t.substr(6);
    } else if (t.starts_with("align") && t.size() > 5) {
      Append(align, t.substr(5));
    } else if (t.starts_with("k") && t.find('c') != std::string_view::npos && t.find('r') != std::string_view::npos &&
               t.find('s') != std::string_view::npos && t.find_first_of("0123456789") == 1) {
      filter = t;  // k64c4r7s7: output channels, input channels, filter height and width
    } else if (!(shape = ShapeAfter(t, "stride")).empty()) {
      stride = shape;
    } else if (t == "segment" && i + 2 < tokens.size() && tokens[i + 1] == "k") {
      split = "segment_k_" + std::string(tokens[i + 2]);
      i += 2;
    } else if (t == "split" && i + 1 < tokens.size() && tokens[i + 1] == "k") {
      split = "split_k";
      ++i;
    } else if (t == "execute" || t == "kernel" || t == "5x" || t == "cudnn" || t.empty()) {
      continue;  // kernel__5x_cudnn: which build of cuDNN's xmma
    } else {
      Append(options, t);
    }
  }
  const bool first_layer = algorithm.find("first_layer") != std::string::npos;
  std::string variant;  // implicit_gemm_indexed_wo_smem -> indexed_wo_smem; indexed_implicit_gemm -> indexed
  for (const std::string_view w : SplitOn(algorithm, '_')) {
    if (w != "implicit" && w != "gemm" && w != "image" && w != "first" && w != "layer") Append(variant, w, "_");
  }
  KernelFamily f{"conv_" + std::string(direction) + (first_layer ? "_first_layer" : "_implicit_gemm"),
                 {{"op", std::string(direction)}}};
  AddFeature(f.features, "arch", tokens[0]);
  AddFeature(f.features, "variant", variant);
  AddFeature(f.features, "dtype", dtype);
  AddFeature(f.features, "layout", layout);
  AddFeature(f.features, "tile", tile);
  AddFeature(f.features, "stages", stages);
  AddFeature(f.features, "warps", warps);
  AddFeature(f.features, "warp_groups", warp_groups);
  AddFeature(f.features, "mma", mma);
  AddFeature(f.features, "align", align);
  AddFeature(f.features, "filter", filter);
  AddFeature(f.features, "stride", stride);
  AddFeature(f.features, "split", split);
  AddFeature(f.features, "options", options);
  return f;
}

}  // namespace kscope::analysis
