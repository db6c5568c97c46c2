// Which library a kernel comes from, by its name, and the helpers the family rules share.
#include <array>
#include <utility>

#include "analysis/kernel_families.h"

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

}  // namespace

// By the name, in this order: NCCL, Triton, cuDNN (its generated attention kernels say
// "flash" too), FlashAttention (also the flash and memory-efficient attention kernels that
// PyTorch ships: a flash_*/fmha_* name is the FlashAttention code whoever built it), CUTLASS,
// cuBLAS, ATen, user.
//
// CUTLASS kernels that cuBLAS ships and launches (cutlass::Kernel2<cutlass_80_simt_sgemm_...>,
// picked by cuBLAS for torch's fp32 matmul in the devset) are CUTLASS here: the name tells
// the code's origin, not who launched it; the launching library shows in the CUDA API calls.
KernelLibrary LibraryOf(const KernelNameParts& parts) {
  const std::string& n = parts.name;
  const std::string& q = parts.qualified;
  if (n.starts_with("nccl")) return KernelLibrary::kNccl;
  if (n.starts_with("triton_")) return KernelLibrary::kTriton;
  if (Contains(n, "cudnn") || q.starts_with("cudnn")) return KernelLibrary::kCudnn;
  if (n.starts_with("flash_") || n.starts_with("fmha") || Contains(q, "flash::")) {
    return KernelLibrary::kFlashAttention;
  }
  if (q.starts_with("cutlass::") || n.starts_with("cutlass_")) return KernelLibrary::kCutlass;
  if (n.starts_with("nvjet") || n.starts_with("gemv") || q.starts_with("cublas") || Contains(n, "cublas") ||
      IsCublasGemmName(n)) {
    return KernelLibrary::kCublas;
  }
  // ATen's kernels live in at:: (ncu drops at::native), a few in an anonymous namespace:
  // RangeFactories.cu's elementwise_kernel_with_index, known by its at:: template arguments.
  if (q.starts_with("at::") || q.starts_with("c10::") || q.starts_with("at_cuda_detail::") ||
      (q.starts_with("(anonymous namespace)::") && Contains(parts.tidy, "at::"))) {
    return KernelLibrary::kAten;
  }
  return KernelLibrary::kUser;
}

void AddFeature(std::vector<KernelFeature>& features, std::string key, std::string_view value) {
  if (!value.empty()) features.push_back({std::move(key), std::string(value)});
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
