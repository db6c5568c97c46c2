#include "analysis/kernels/peaks.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace kscope::analysis {

namespace {

struct Entry {
  std::string_view match;  // lower-case substring of the GPU name
  std::string_view name;
  double bandwidth;                                         // bytes/s
  double fp64, fp32, tensor_tf32, tensor_bf16, tensor_fp8;  // dense FLOP/s; 0: not given
};

// NVIDIA's published datasheet figures: dense tensor throughput (the sparsity figures halved),
// boost clocks, the SXM part unless named. More specific names first.
constexpr double T = 1e12;
constexpr std::array<Entry, 8> kTable{{
    {"h100 pcie", "H100 PCIe", 2.0e12, 25.6 * T, 51.2 * T, 378 * T, 756 * T, 1513 * T},
    {"h100 nvl", "H100 NVL", 3.9e12, 30 * T, 60 * T, 417.5 * T, 835.5 * T, 1670.5 * T},
    {"h100", "H100 SXM", 3.35e12, 34 * T, 67 * T, 494.7 * T, 989.4 * T, 1978.9 * T},
    {"h200", "H200 SXM", 4.8e12, 34 * T, 67 * T, 494.7 * T, 989.4 * T, 1978.9 * T},
    {"a100 80gb pcie", "A100 80GB PCIe", 1.935e12, 9.7 * T, 19.5 * T, 156 * T, 312 * T, 0},
    {"a100", "A100 SXM", 2.039e12, 9.7 * T, 19.5 * T, 156 * T, 312 * T, 0},
    {"l40s", "L40S", 0.864e12, 0, 91.6 * T, 183 * T, 362.05 * T, 733 * T},
    {"b200", "B200", 8.0e12, 0, 0, 1100 * T, 2250 * T, 4500 * T},
}};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

const Entry* Find(std::string_view gpu) {
  const std::string g = Lower(gpu);
  for (const auto& e : kTable) {
    if (g.find(e.match) != std::string::npos) return &e;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> PrecisionOfDtype(std::string_view dtype) {
  const std::string d = Lower(dtype);
  if (d == "bf16" || d == "bfloat16") return "Tensor BF16";
  if (d == "fp16" || d == "float16" || d == "half") return "Tensor FP16";
  if (d == "fp8" || d == "e4m3" || d == "e5m2") return "Tensor FP8";
  if (d == "tf32") return "Tensor TF32";
  if (d == "fp32" || d == "float32" || d == "float") return "FP32";
  if (d == "fp64" || d == "float64" || d == "double") return "FP64";
  return std::nullopt;
}

std::optional<DatasheetGpu> FindDatasheetGpu(std::string_view gpu_name) {
  const Entry* e = Find(gpu_name);
  if (e == nullptr) return std::nullopt;
  return DatasheetGpu{e->name, e->bandwidth};
}

std::optional<double> DatasheetFlops(std::string_view gpu_name, std::string_view precision) {
  const Entry* e = Find(gpu_name);
  if (e == nullptr) return std::nullopt;
  double v = 0;
  if (precision == "FP64") v = e->fp64;
  if (precision == "FP32") v = e->fp32;
  if (precision == "Tensor TF32") v = e->tensor_tf32;
  if (precision == "Tensor BF16" || precision == "Tensor FP16") v = e->tensor_bf16;
  if (precision == "Tensor FP8") v = e->tensor_fp8;
  return v > 0 ? std::optional<double>(v) : std::nullopt;
}

}  // namespace kscope::analysis
