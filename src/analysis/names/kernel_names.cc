#include "analysis/names/kernel_names.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "analysis/names/kernel_families.h"
#include "analysis/names/kernel_name_normalize.h"

namespace kscope::analysis {

namespace {

// Names no rule knows: the name without namespaces, its template arguments as a feature.
KernelFamily GenericFamily(const KernelNameParts& parts) {
  KernelFamily f{parts.name.empty() ? parts.key : parts.name, {}};
  AddFeature(f.features, "template", fmt::format("{}", fmt::join(parts.args, ", ")));
  return f;
}

}  // namespace

bool RegistersByDesign(KernelLibrary library) {
  return library == KernelLibrary::kCublas || library == KernelLibrary::kCutlass || library == KernelLibrary::kCudnn ||
         library == KernelLibrary::kFlashAttention;
}

std::string_view LibraryName(KernelLibrary library) {
  switch (library) {
    case KernelLibrary::kCublas: return "cuBLAS";
    case KernelLibrary::kCutlass: return "CUTLASS";
    case KernelLibrary::kCudnn: return "cuDNN";
    case KernelLibrary::kFlashAttention: return "FlashAttention";
    case KernelLibrary::kTriton: return "Triton";
    case KernelLibrary::kAten: return "ATen";
    case KernelLibrary::kNccl: return "NCCL";
    case KernelLibrary::kCub: return "CUB";
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
  KernelNameParts parts;
  parts.qualified = QualifiedBaseName(k.demangled);
  parts.tidy = NormalizeName(k.demangled, NameForm::kTidy);
  parts.key = NormalizeName(k.demangled, NameForm::kKey);
  parts.name = std::string(KeyHead(parts.key));
  for (const std::string_view arg : KeyTemplateArgs(parts.key)) parts.args.emplace_back(arg);
  k.base = parts.qualified;
  k.library = LibraryOf(parts);
  auto family = VendorFamily(k.library, parts);
  if (!family) family = GenericFamily(parts);
  k.family = std::move(family->family);
  k.features = std::move(family->features);
  return k;
}

}  // namespace kscope::analysis
