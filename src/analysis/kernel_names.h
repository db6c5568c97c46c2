// Kernel name identity: demangled name, base name, family key and library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kscope::analysis {

enum class KernelLibrary { kCublas, kCutlass, kCudnn, kFlashAttention, kTriton, kAten, kNccl, kUser };
std::string_view LibraryName(KernelLibrary library);

struct KernelFeature {
  std::string key;
  std::string value;
};

struct KernelIdentity {
  std::string demangled;
  std::string base;
  std::string family;
  KernelLibrary library = KernelLibrary::kUser;
  std::vector<KernelFeature> features;
};

KernelIdentity IdentifyKernel(std::string_view name);

// Equal for the nsys-demangled, ncu-demangled and mangled spelling of one kernel: no
// namespaces, literal casts, whitespace differences, parameters of templates or return
// types; lambdas and the anonymous namespace spelled one way. Two kernels that differ only
// in namespace (or a template's parameters) share a key.
std::string KernelMatchKey(std::string_view any_spelling);

}  // namespace kscope::analysis
