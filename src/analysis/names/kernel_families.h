// The library a kernel comes from and its family, from its name's parts. Rules per library
// live in kernel_families_gemm.cc (cuBLAS, CUTLASS's generated names),
// kernel_families_cutlass.cc (CUTLASS's templates), kernel_families_conv.cc (cuDNN's
// convolutions), kernel_families_vendor.cc (cuDNN, FlashAttention, Triton, NCCL),
// kernel_families_aten.cc and kernel_families_foreach.cc (PyTorch ATen).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/names/kernel_names.h"

namespace kscope::analysis {

struct KernelNameParts {
  std::string qualified;          // at::native::vectorized_elementwise_kernel
  std::string tidy;               // the whole name, NameForm::kTidy: namespaces kept
  std::string key;                // KernelMatchKey
  std::string name;               // vectorized_elementwise_kernel
  std::vector<std::string> args;  // top-level template arguments, in the key's form
};

struct KernelFamily {
  std::string family;
  std::vector<KernelFeature> features;
};

KernelLibrary LibraryOf(const KernelNameParts& parts);

// The family by the library's own rules (ATen's too); nullopt where they do not know the name.
std::optional<KernelFamily> VendorFamily(KernelLibrary library, const KernelNameParts& parts);
std::optional<KernelFamily> AtenFamily(const KernelNameParts& parts);
std::optional<KernelFamily> CublasFamily(const KernelNameParts& parts);   // kernel_families_gemm.cc
std::optional<KernelFamily> CutlassNameFamily(std::string_view name);     // kernel_families_gemm.cc
std::optional<KernelFamily> CutlassFamily(const KernelNameParts& parts);  // kernel_families_cutlass.cc
std::optional<KernelFamily> XmmaConvFamily(std::string_view name);        // kernel_families_conv.cc
std::optional<KernelFamily> ForeachFamily(const KernelNameParts& parts);  // kernel_families_foreach.cc

// What every rule uses.
void AddFeature(std::vector<KernelFeature>& features, std::string key, std::string_view value);
std::vector<std::string_view> SplitOn(std::string_view s, char separator);
// The template arguments of the first template `head` inside a kKey name (at any depth), as
// KeyTemplateArgs gives them; nullopt when there is none.
std::optional<std::vector<std::string_view>> ArgsOf(std::string_view key, std::string_view head);
bool IsShape(std::string_view token);  // 64x8, 4x1x1
bool IsArch(std::string_view token);   // sm90, sm90a
// A C++ element type as dtype: c10::BFloat16 -> bf16, float -> fp32, long -> int64; other
// types as they are.
std::string DtypeName(std::string_view cpp_type);

}  // namespace kscope::analysis
