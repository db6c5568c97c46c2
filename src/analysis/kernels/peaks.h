// Peak FLOP/s and DRAM bandwidth of a GPU: from ncu's own peak metrics when a run has them
// (the roofline), else from a built-in table of datasheet figures, marked as such.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kscope::analysis {

// The roofline precision a model dtype computes in: "bf16" -> "Tensor BF16", "fp8" ->
// "Tensor FP8", "tf32" -> "Tensor TF32", "fp16" -> "Tensor FP16", "fp32" -> "FP32",
// "fp64" -> "FP64"; nullopt for a dtype kscope does not know.
std::optional<std::string> PrecisionOfDtype(std::string_view dtype);

struct DatasheetGpu {
  std::string_view name;  // as the datasheet names it, e.g. "H100 SXM"
  double bandwidth;       // DRAM bytes/s
};

// The datasheet entry for a GPU name as nsys/nvidia-smi print it ("NVIDIA H100 80GB HBM3").
std::optional<DatasheetGpu> FindDatasheetGpu(std::string_view gpu_name);
// Dense (no sparsity) peak FLOP/s of `precision` (a roofline precision name) at boost clock.
std::optional<double> DatasheetFlops(std::string_view gpu_name, std::string_view precision);

}  // namespace kscope::analysis
