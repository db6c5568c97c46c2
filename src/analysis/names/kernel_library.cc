// Which library a kernel comes from, by its name, and the helpers the family rules share.
#include <algorithm>
#include <array>
#include <utility>

#include "analysis/names/kernel_families.h"
#include "analysis/names/kernel_name_normalize.h"

namespace kscope::analysis {

namespace {

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// cuBLAS's GEMMs before nvjet: sm90_xmma_gemm_..._cublas, ampere_sgemm_128x64_nn,
// volta_h884gemm_64x128_ldg8_nn.
bool IsCublasGemmName(std::string_view name) {
  constexpr std::array<std::string_view, 8> kArchNames = {"maxwell_", "pascal_", "volta_",  "turing_",
                                                          "ampere_",  "ada_",    "hopper_", "blackwell_"};
  if (!Contains(name, "gemm")) return false;
  if (name.starts_with("sm") && Contains(name, "_xmma_gemm")) return true;
  for (const std::string_view arch : kArchNames) {
    if (name.starts_with(arch)) return true;
  }
  return false;
}

// ATen kernels that ncu spells without at:: (or that live in an anonymous namespace) and
// whose name and template arguments do not mention at:: or c10:: either.
bool IsAtenKernelName(std::string_view name) {
  constexpr std::array<std::string_view, 9> kNames = {
      "softmax_warp_forward",      "softmax_warp_backward", "gatherTopK",
      "kernelHistogram1D",         "unpack_cudnn",          "radixSortKVInPlace",
      "prepare_grouped_gemm_data", "bitonicSortKVInPlace",  "elementwise_kernel_with_index"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

// ATen's kernel templates for TensorIterator ops, which user code rarely names alike; with no
// namespace at all they count as ATen's only when their arguments are ATen's.
bool IsAtenTemplateName(std::string_view name) {
  constexpr std::array<std::string_view, 5> kNames = {"vectorized_elementwise_kernel", "unrolled_elementwise_kernel",
                                                      "elementwise_kernel", "reduce_kernel",
                                                      "index_elementwise_kernel"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

// A kTidy name up to its parameter list: its template arguments say what it runs, while any
// kernel may take ATen's tensor accessors as parameters.
std::string_view TemplatePart(std::string_view tidy) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  int angle = 0;
  for (size_t i = 0; i < tidy.size(); ++i) {
    if (tidy[i] == '<') ++angle;
    if (tidy[i] == '>' && angle > 0) --angle;
    if (tidy[i] == '(' && angle == 0) {
      if (!tidy.substr(i).starts_with(kAnonymous)) return tidy.substr(0, i);
      i += kAnonymous.size() - 1;
    }
  }
  return tidy;
}

// The first namespace of a qualified name ("at" for at::native::f), empty without one.
std::string_view FirstNamespace(std::string_view qualified) {
  const size_t end = qualified.find("::");
  return end == std::string_view::npos ? std::string_view() : qualified.substr(0, end);
}

// ATen's kernels live in at:: and at::native::, which ncu shortens to at:: or native:: or
// drops (at::native::sbtopk:: becomes sbtopk::, at::cuda:: cuda::, at::cuda::philox::
// philox::); a few live in an anonymous namespace (RangeFactories.cu, PersistentSoftmax.cuh).
// Under those shortened or anonymous namespaces a kernel is ATen's when its name is one of
// ATen's or its spelling mentions at:: or c10::.
bool IsAten(const KernelNameParts& parts) {
  const std::string_view top = FirstNamespace(parts.qualified);
  if (top == "at" || top == "c10" || top == "native") return true;
  constexpr std::array<std::string_view, 6> kShortened = {
      "(anonymous namespace)", "cuda", "sbtopk", "mbtopk", "philox", ""};
  if (std::find(kShortened.begin(), kShortened.end(), top) == kShortened.end()) return false;
  if (IsAtenKernelName(parts.name)) return true;
  const std::string_view head = TemplatePart(parts.tidy);
  if (top.empty() && IsAtenTemplateName(parts.name)) {
    // ncu with every namespace dropped: void vectorized_elementwise_kernel<8,
    // bfloat16_copy_kernel_cuda(TensorIteratorBase &)::[lambda...], array<char *, 2>>.
    return Contains(head, "TensorIteratorBase") || Contains(head, "array<char *") || Contains(head, "ReduceOp<");
  }
  return !top.empty() && (Contains(head, "at::") || Contains(head, "c10::"));
}

// cuDNN's kernels: cudnn_* names, the cudnn:: namespace (ncu drops it from
// cudnn::engines_precompiled::), its xmma kernels (sm90_xmma_fprop_..._cudnn) and plug-ins
// (cask_plugin__5x_cudnn::), and kernels whose spelling uses cuDNN's types.
bool IsCudnn(const KernelNameParts& parts) {
  const std::string_view top = FirstNamespace(parts.qualified);
  return Contains(parts.name, "cudnn") || top == "cudnn" || top == "engines_precompiled" ||
         top.starts_with("cask_plugin") || Contains(parts.tidy, "cudnn::") ||
         Contains(parts.tidy, "cudnnKernelDataType_t");
}

}  // namespace

// By the name, in this order: NCCL, Triton, ATen (before cuDNN: at::cuda::philox::unpack_cudnn
// is ATen's), CUB, cuDNN (its generated attention kernels say "flash" too), FlashAttention
// (also the flash and memory-efficient attention kernels that PyTorch ships: a flash_*/fmha_*
// name is the FlashAttention code whoever built it), CUTLASS, cuBLAS, user.
//
// A kernel's library is the code's origin, not who launched it: CUTLASS kernels that cuBLAS
// ships and launches (cutlass::Kernel2<cutlass_80_simt_sgemm_...>, picked by cuBLAS for torch's
// fp32 matmul in the devset), or that cuDNN ships (cutlass__5x_cudnn::Kernel<...>), are CUTLASS;
// CUB's scans compiled into PyTorch (at_cuda_detail::cub::...) are CUB. The launching library
// shows in the CUDA API calls (and cuDNN's copy of CUTLASS in the feature shipped_in).
KernelLibrary LibraryOf(const KernelNameParts& parts) {
  const std::string& n = parts.name;
  const std::string& q = parts.qualified;
  if (n.starts_with("nccl")) return KernelLibrary::kNccl;
  if (n.starts_with("triton_")) return KernelLibrary::kTriton;
  const std::string_view top = FirstNamespace(q);
  if (top == "at_cuda_detail" || top == "cub" || top == "thrust" || Contains(q, "::cub::")) return KernelLibrary::kCub;
  if (IsAten(parts)) return KernelLibrary::kAten;
  if (IsCudnn(parts) && !top.starts_with("cutlass")) return KernelLibrary::kCudnn;
  if (n.starts_with("flash_") || n.starts_with("fmha") || Contains(q, "flash::")) {
    return KernelLibrary::kFlashAttention;
  }
  if (top == "cutlass" || top.starts_with("cutlass__") || n.starts_with("cutlass_")) return KernelLibrary::kCutlass;
  // gemv2T_kernel_val<...>, gemvx::kernel<...> (both take cublasGemvParamsEx<...>).
  if (n.starts_with("nvjet") || n.starts_with("gemv") || top.starts_with("gemv") || q.starts_with("cublas") ||
      Contains(n, "cublas") || IsCublasGemmName(n)) {
    return KernelLibrary::kCublas;
  }
  return KernelLibrary::kUser;
}

void AddFeature(std::vector<KernelFeature>& features, std::string key, std::string_view value) {
  if (!value.empty()) features.push_back({std::move(key), std::string(value)});
}

std::optional<std::vector<std::string_view>> ArgsOf(std::string_view key, std::string_view head) {
  const std::string open = std::string(head) + "<";
  for (size_t at = key.find(open); at != std::string_view::npos; at = key.find(open, at + 1)) {
    const bool word_start = at == 0 || std::string_view("<,(*&").find(key[at - 1]) != std::string_view::npos;
    if (word_start) return KeyTemplateArgs(key.substr(at));
  }
  return std::nullopt;
}

std::vector<std::string_view> SplitOn(std::string_view s, char separator) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == separator) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool IsShape(std::string_view token) {
  bool digit = false;
  int crosses = 0;
  for (const char c : token) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c == 'x' && digit) {
      ++crosses;
      digit = false;
    } else {
      return false;
    }
  }
  return crosses > 0 && digit;
}

bool IsArch(std::string_view token) {
  if (!token.starts_with("sm") || token.size() < 4) return false;
  size_t i = 2;
  while (i < token.size() && token[i] >= '0' && token[i] <= '9') ++i;
  return i > 2 && (i == token.size() || (i + 1 == token.size() && token[i] >= 'a' && token[i] <= 'z'));
}

std::string DtypeName(std::string_view cpp_type) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 28> kNames{{
      {"BFloat16", "bf16"},
      {"__nv_bfloat16", "bf16"},
      {"bfloat16_t", "bf16"},
      {"Half", "fp16"},
      {"__half", "fp16"},
      {"half_t", "fp16"},
      {"float", "fp32"},
      {"double", "fp64"},
      {"long", "int64"},
      {"long long", "int64"},
      {"int64_t", "int64"},
      {"int", "int32"},
      {"short", "int16"},
      {"signed char", "int8"},
      {"char", "int8"},
      {"unsigned long", "uint64"},
      {"unsigned long long", "uint64"},
      {"unsigned int", "uint32"},
      {"unsigned short", "uint16"},
      {"unsigned char", "uint8"},
      {"bool", "bool"},
      {"complex<float>", "complex64"},
      {"complex<double>", "complex128"},
      {"complex<Half>", "complex32"},
      {"Float8_e4m3fn", "fp8_e4m3fn"},
      {"Float8_e5m2", "fp8_e5m2"},
      {"Float8_e4m3fnuz", "fp8_e4m3fnuz"},
      {"Float8_e5m2fnuz", "fp8_e5m2fnuz"},
  }};
  for (const auto& [cpp, dtype] : kNames) {
    if (cpp_type == cpp) return std::string(dtype);
  }
  return std::string(cpp_type);
}

}  // namespace kscope::analysis
