// Short kernel names for tables and charts: a kernel's family plus the features that tell it
// apart from the other kernels of its family in the same set of names (tile shape, data type,
// layout for a GEMM; the variant and dtype of an ATen elementwise loop): the fewest that do,
// picked greedily (the feature telling most of them apart first), template arguments cut.
// Unique within the set: kernels that no feature tells apart get " #2", " #3" in the order
// given. Real names of the devset's Llama run:
//   nvjet_sm90_tst_8x64_64x16_2x1_v_bz_TNN       -> nvjet_gemm 8x64 cluster=2x1
//   nvjet_sm90_tst_8x64_64x16_4x1_v_bz_TNN       -> nvjet_gemm 8x64 cluster=4x1
//   nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT       -> nvjet_gemm 64x8 cluster=4x1
//   at::native::vectorized_elementwise_kernel<(int)8, at::native::CUDAFunctor_add<c10::BFloat16>, ...>
//                                                -> elementwise:add bf16 (beside an fp32 one)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/names/kernel_names.h"

namespace kscope::analysis {

// Longest text kept of a template feature in a short name.
inline constexpr size_t kShortTemplateChars = 24;

// One short name per name of `names`, in the same order. Spellings of one kernel (nsys's and
// ncu's, mangled or not: one KernelMatchKey) get one short name, distinct kernels distinct ones.
std::vector<std::string> ShortKernelNames(const std::vector<std::string>& names);

// The short name of one kernel seen alone: its family.
std::string ShortKernelName(std::string_view name);

}  // namespace kscope::analysis
