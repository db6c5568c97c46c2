// Feeds arbitrary bytes to the kernel name rules as a name: whatever the bytes (unbalanced
// brackets, half a lambda, a mangled name the demangler rejects), naming a kernel and
// keying it never crash, and the mangled and demangled spellings share their key.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analysis/names/kernel_names.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  const auto identity = kscope::analysis::IdentifyKernel(name);
  const std::string key = kscope::analysis::KernelMatchKey(name);
  if (!identity.demangled.starts_with("_Z") && kscope::analysis::KernelMatchKey(identity.demangled) != key) {
    std::fprintf(stderr, "kernel_name_fuzzer: the demangled name has another key: %s\n", identity.demangled.c_str());
    std::abort();
  }
  return 0;
}
