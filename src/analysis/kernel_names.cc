#include "analysis/kernel_names.h"

#include "analysis/kernel_name_normalize.h"

namespace kscope::analysis {

std::string_view LibraryName(KernelLibrary library) {
  switch (library) {
    case KernelLibrary::kCublas: return "cuBLAS";
    case KernelLibrary::kCutlass: return "CUTLASS";
    case KernelLibrary::kCudnn: return "cuDNN";
    case KernelLibrary::kFlashAttention: return "FlashAttention";
    case KernelLibrary::kTriton: return "Triton";
    case KernelLibrary::kAten: return "ATen";
    case KernelLibrary::kNccl: return "NCCL";
    case KernelLibrary::kUser: return "user";
  }
  return "user";
}

std::string KernelMatchKey(std::string_view any_spelling) {
  return NormalizeName(DemangleName(any_spelling), NameForm::kKey);
}

KernelIdentity IdentifyKernel(std::string_view name) {
  KernelIdentity k;
  k.demangled = DemangleName(name);
  k.base = QualifiedBaseName(k.demangled);
  k.family = k.base;
  const std::string& b = k.base;
  if (b.starts_with("nvjet_") || b.find("gemv") != std::string::npos || b.starts_with("sm90_xmma") ||
      b.find("cublas") != std::string::npos) {
    k.library = KernelLibrary::kCublas;
  } else if (b.starts_with("cudnn") || b.find("cudnn") != std::string::npos) {
    k.library = KernelLibrary::kCudnn;
  } else if (b.find("cutlass") != std::string::npos) {
    k.library = KernelLibrary::kCutlass;
  } else if (b.find("flash") != std::string::npos) {
    k.library = KernelLibrary::kFlashAttention;
  } else if (b.starts_with("triton_")) {
    k.library = KernelLibrary::kTriton;
  } else if (b.starts_with("at::") || b.starts_with("void at::")) {
    k.library = KernelLibrary::kAten;
  } else if (b.starts_with("nccl")) {
    k.library = KernelLibrary::kNccl;
  }
  return k;
}

}  // namespace kscope::analysis
