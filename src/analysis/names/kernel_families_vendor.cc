// Families of cuDNN, FlashAttention, Triton and NCCL kernels, and the dispatch by library.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>

#include "analysis/names/kernel_families.h"
#include "analysis/names/kernel_name_normalize.h"

namespace kscope::analysis {

namespace {

bool IsNumber(std::string_view t) { return !t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos; }

template <size_t N>
bool OneOf(std::string_view t, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), t) != set.end();
}

void Append(std::string& list, std::string_view item, std::string_view separator = ",") {
  list += (list.empty() ? "" : std::string(separator)) + std::string(item);
}

// The data types, MMA instructions and shapes of a name made of words joined by '_'.
struct FlatName {
  std::string words, arch, mma, dtype, knob, tile, cluster, options;
};

FlatName ParseFlatName(const std::vector<std::string_view>& tokens, size_t start) {
  constexpr std::array<std::string_view, 6> kMma = {"wmma", "wgmma", "hmma", "mma", "imma", "umma"};
  constexpr std::array<std::string_view, 11> kTypes = {"f16",  "bf16", "f32",  "tf32", "fp8", "e4m3",
                                                       "e5m2", "fp16", "fp32", "i8",   "int8"};
  FlatName f;
  for (size_t i = start; i < tokens.size(); ++i) {
    const std::string_view t = tokens[i];
    if (IsArch(t)) {
      f.arch = t;
    } else if (OneOf(t, kMma)) {
      f.mma = t;
    } else if (OneOf(t, kTypes)) {
      Append(f.dtype, t);
    } else if (t == "knob" && i + 1 < tokens.size() && IsNumber(tokens[i + 1])) {
      f.knob = tokens[++i];
    } else if (IsShape(t)) {
      Append(f.tile.empty() ? f.tile : f.options, t);
    } else if (t.starts_with("cga") && IsShape(t.substr(3))) {
      f.cluster = t.substr(3);  // cooperative group array: the thread block cluster
    } else if (IsNumber(t) || (t.starts_with("kernel") && IsNumber(t.substr(6))) || t.empty()) {
      continue;  // kernel0_0: which kernel of a generated program
    } else if (f.tile.empty()) {
      Append(f.words, t, "_");
    } else {
      Append(f.options, t);
    }
  }
  return f;
}

void AddFlatFeatures(std::vector<KernelFeature>& features, const FlatName& f) {
  AddFeature(features, "arch", f.arch);
  AddFeature(features, "mma", f.mma);
  AddFeature(features, "dtype", f.dtype);
  AddFeature(features, "knob", f.knob);
  AddFeature(features, "tile", f.tile);
  AddFeature(features, "cluster", f.cluster);
  AddFeature(features, "options", f.options);
}

// cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1
// _kernel0_0 (cuDNN's runtime-compiled kernels): family cudnn_sdpa_flash_fprop for every
// architecture, MMA, type and tile. The type is the name's: f16 is any 16-bit float (the
// bf16 Llama of the devset runs these f16 kernels). What 4x1x1 is, is not known (not the
// warps: these kernels run 128 and 384 threads): it stays an option.
std::optional<KernelFamily> CudnnFamily(const KernelNameParts& parts) {
  constexpr std::string_view kPrefix = "cudnn_generated_fort_native_";
  if (auto conv = XmmaConvFamily(parts.name)) return conv;
  if (!parts.name.starts_with(kPrefix)) return std::nullopt;
  const FlatName flat = ParseFlatName(SplitOn(std::string_view(parts.name).substr(kPrefix.size()), '_'), 0);
  if (flat.words.empty()) return std::nullopt;
  KernelFamily f{"cudnn_" + flat.words, {}};
  const auto words = SplitOn(flat.words, '_');
  if (std::find(words.begin(), words.end(), "sdpa") != words.end()) AddFeature(f.features, "op", "attention");
  AddFlatFeatures(f.features, flat);
  return f;
}

// flash_fwd_kernel<...>, flash_fwd_splitkv_kernel<...>: the name, template arguments kept;
// fmha_cutlassF_bf16_aligned_64x64_rf_sm80 (PyTorch's memory-efficient attention): its first
// two words, the rest as features.
std::optional<KernelFamily> FlashFamily(const KernelNameParts& parts) {
  const auto tokens = SplitOn(parts.name, '_');
  if (parts.name.starts_with("fmha") && parts.args.empty() && tokens.size() > 2) {
    KernelFamily f{std::string(tokens[0]) + "_" + std::string(tokens[1]), {{"op", "attention"}}};
    const FlatName flat = ParseFlatName(tokens, 2);
    AddFeature(f.features, "variant", flat.words);  // aligned, notaligned
    AddFlatFeatures(f.features, flat);
    return f;
  }
  KernelFamily f{parts.name, {{"op", "attention"}}};
  std::string args;
  for (const auto& a : parts.args) Append(args, a, ", ");
  AddFeature(f.features, "template", args);
  return f;
}

// Inductor's triton_<kind>_fused_<ops>_<index>: the ops are the ATen ops the kernel fuses,
// sorted and joined by '_' (`triton_poi_fused__to_copy_add_native_layer_norm_view_3`). Family
// triton_<kind>:<op>+<op>..., each op as ATen names it without its leading '_'; the index
// (which kernel of the generated program) goes. Ops of several words are read with the list
// below; "backward", "forward" and "data" belong to the op before them.
std::vector<std::string> TritonOps(const std::vector<std::string_view>& words) {
  constexpr std::array<std::string_view, 22> kMultiWord = {"native_layer_norm",
                                                           "native_dropout",
                                                           "native_batch_norm",
                                                           "native_group_norm",
                                                           "embedding_dense",
                                                           "log_softmax",
                                                           "unsafe_view",
                                                           "to_copy",
                                                           "nll_loss",
                                                           "nll_loss2d",
                                                           "scalar_tensor",
                                                           "constant_pad_nd",
                                                           "prepare_softmax_online",
                                                           "index_put",
                                                           "index_select",
                                                           "masked_fill",
                                                           "slice_scatter",
                                                           "select_scatter",
                                                           "max_pool2d_with_indices",
                                                           "avg_pool2d",
                                                           "full_like",
                                                           "zeros_like"};
  std::vector<std::string> ops;
  for (size_t i = 0; i < words.size();) {
    if (words[i].empty()) {  // the '_' that starts _to_copy
      ++i;
      continue;
    }
    size_t take = 1;
    std::string op(words[i]);
    for (const std::string_view known : kMultiWord) {
      const auto parts = SplitOn(known, '_');
      if (parts.size() > take && i + parts.size() <= words.size() &&
          std::equal(parts.begin(), parts.end(), words.begin() + static_cast<std::ptrdiff_t>(i))) {
        take = parts.size();
        op = known;
      }
    }
    i += take;
    const bool suffix = op == "backward" || op == "forward" || op == "data";
    if (suffix && !ops.empty()) {
      ops.back() += "_" + op;
    } else {
      ops.push_back(op);
    }
  }
  return ops;
}

std::optional<KernelFamily> TritonFamily(const KernelNameParts& parts) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kKinds{{{"poi", "pointwise"},
                                                                                 {"red", "reduction"},
                                                                                 {"per", "persistent_reduction"},
                                                                                 {"tem", "template"},
                                                                                 {"for", "foreach"}}};
  auto words = SplitOn(parts.name, '_');  // triton, kind, fused, ops..., index
  if (words.size() < 3) return std::nullopt;
  std::string_view kind = words[1];
  for (const auto& [code, name] : kKinds) {
    if (words[1] == code) kind = name;
  }
  std::string_view index;
  if (words.size() > 3 && IsNumber(words.back())) {
    index = words.back();
    words.pop_back();
  }
  const size_t first = words[2] == "fused" ? 3 : 2;
  std::string ops;
  for (const auto& op : TritonOps({words.begin() + static_cast<std::ptrdiff_t>(first), words.end()})) {
    Append(ops, op, "+");
  }
  KernelFamily f{"triton_" + std::string(kind) + (ops.empty() ? "" : ":" + ops), {}};
  AddFeature(f.features, "kind", kind);
  AddFeature(f.features, "index", index);
  return f;
}

// ncclDevKernel_AllReduce_Sum_f32_RING_LL, ncclKernel_AllReduce_RING_LL_Sum_float: family
// nccl:<collective>; algorithm, protocol, reduction and type as features.
std::optional<KernelFamily> NcclFamily(const KernelNameParts& parts) {
  constexpr std::array<std::string_view, 3> kProtocols = {"LL", "LL128", "SIMPLE"};
  constexpr std::array<std::string_view, 7> kRedOps = {"Sum",       "Prod",       "Min",   "Max",
                                                       "PreMulSum", "SumPostDiv", "MinMax"};
  const auto tokens = SplitOn(parts.name, '_');
  if (tokens.size() < 2) return std::nullopt;
  KernelFamily f{"nccl:" + std::string(tokens[1]), {{"op", std::string(tokens[1])}}};
  std::string algo, proto, redop, dtype;
  for (size_t i = 2; i < tokens.size(); ++i) {
    const std::string_view t = tokens[i];
    if (OneOf(t, kProtocols)) {
      proto = t;
    } else if (OneOf(t, kRedOps)) {
      redop = t;
    } else if (!t.empty() && t.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string_view::npos) {
      Append(algo, t, "_");  // RING, TREE, COLLNET_DIRECT, NVLS
    } else if (!IsNumber(t)) {
      Append(dtype, t, "_");  // int8_t
    }
  }
  AddFeature(f.features, "algo", algo);
  AddFeature(f.features, "proto", proto);
  AddFeature(f.features, "redop", redop);
  AddFeature(f.features, "dtype", dtype);
  return f;
}

}  // namespace

std::optional<KernelFamily> VendorFamily(KernelLibrary library, const KernelNameParts& parts) {
  switch (library) {
    case KernelLibrary::kCublas: return CublasFamily(parts);
    case KernelLibrary::kCutlass: return CutlassFamily(parts);
    case KernelLibrary::kCudnn: return CudnnFamily(parts);
    case KernelLibrary::kFlashAttention: return FlashFamily(parts);
    case KernelLibrary::kTriton: return TritonFamily(parts);
    case KernelLibrary::kNccl: return NcclFamily(parts);
    case KernelLibrary::kAten: return AtenFamily(parts);
    case KernelLibrary::kCub:
    case KernelLibrary::kUser: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kscope::analysis
