// Kernel name identity: demangled name, base name, family, library and the features a family
// collapses, and a key that links one kernel's nsys, ncu and mangled spellings.
//
// A family is one algorithm of one library; whatever is compiled into a variant of it (GPU
// architecture, data types, tile and cluster shapes, vector width, layout, stages) is a
// feature instead. Families read the same for every spelling of a kernel:
//   nvjet_gemm, xmma_gemm, cublas_gemm, gemv        cuBLAS GEMMs and GEMVs (every nvjet_smXX)
//   cutlass_simt_gemm, cutlass_tensorop_gemm        CUTLASS kernels named cutlass_NN_...
//   cutlass_grouped_gemm, cutlass_gemm              CUTLASS 3 GemmUniversal (grouped: MoE)
//   conv_fprop_implicit_gemm, conv_dgrad_...,       convolutions by direction (cuDNN's xmma
//   conv_wgrad_..., conv_fprop_first_layer          kernels and CUTLASS's)
//   cudnn_sdpa_flash_fprop                          cuDNN's generated kernels, words kept
//   elementwise:add, reduce:mean, distribution:...  ATen kernels by their operation; also
//   cat, index_select, index, gather, scatter       ATen kernels named after their operation
//   foreach:add, fused_adamw                        ATen's kernels over tensor lists
//   nccl:AllReduce                                  NCCL by collective
//   triton_pointwise:add+mul                        Triton (Inductor) by kind and fused ops
//   otherwise the name without namespaces, template arguments and parameters, with the
//   template arguments kept as the feature "template".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kscope::analysis {

enum class KernelLibrary { kCublas, kCutlass, kCudnn, kFlashAttention, kTriton, kAten, kNccl, kCub, kUser };
std::string_view LibraryName(KernelLibrary library);
// Vendor GEMM, convolution and attention kernels (cuBLAS, CUTLASS, cuDNN, FlashAttention) hold
// many registers per thread by design (warp-specialized, one CTA per SM): their occupancy is the
// library's choice, not register pressure that __launch_bounds__ or -maxrregcount could fix.
bool RegistersByDesign(KernelLibrary library);

struct KernelFeature {
  std::string key;
  std::string value;
  bool operator==(const KernelFeature&) const = default;
};

struct KernelIdentity {
  std::string demangled;  // the name as given, or abi::__cxa_demangle's for a mangled one
  std::string base;       // qualified name without return type, template arguments, parameters
  std::string family;
  KernelLibrary library = KernelLibrary::kUser;
  std::vector<KernelFeature> features;  // in a fixed order per family: op first where known
};

// Any spelling: nsys's or ncu's demangled name, a mangled name, a plain C name.
KernelIdentity IdentifyKernel(std::string_view name);

// Equal for the nsys-demangled, ncu-demangled and mangled spelling of one kernel: no
// namespaces, literal casts, whitespace differences, parameters of templates or return
// types; lambdas and the anonymous namespace spelled one way. Two kernels that differ only
// in namespace (or a template's parameters) share a key.
std::string KernelMatchKey(std::string_view any_spelling);

}  // namespace kscope::analysis
