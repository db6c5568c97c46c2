#include "analysis/kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kscope::analysis {

namespace {

std::string Demangle(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(std::string(name).c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

// Drops the return type, template arguments and parameters: the qualified name itself.
std::string BaseName(std::string_view s) {
  std::string out;
  int angle = 0, paren = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') ++angle;
    if (c == '(' && angle == 0) {
      if (s.substr(i).starts_with("(anonymous namespace)")) {
        out += "(anonymous namespace)";
        i += std::string_view("(anonymous namespace)").size() - 1;
        continue;
      }
      ++paren;
    }
    if (angle == 0 && paren == 0) {
      if (c == ' ')
        out.clear();  // a return type ended
      else
        out.push_back(c);
    }
    if (c == '>' && angle > 0) --angle;
    if (c == ')' && paren > 0 && angle == 0) --paren;
  }
  return out;
}

}  // namespace

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

KernelIdentity IdentifyKernel(std::string_view name) {
  KernelIdentity k;
  k.demangled = Demangle(name);
  k.base = BaseName(k.demangled);
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
