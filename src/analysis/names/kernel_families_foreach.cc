// PyTorch's kernels over lists of tensors (ForeachFunctors.cuh, fused optimizers): one
// multi_tensor_apply_kernel template runs every torch._foreach_* op and the fused optimizers,
// so its name is what its template arguments say:
//   multi_tensor_apply_kernel<TensorListMetadata<2>, BinaryOpListAlphaFunctor<float,2,2,0>, plus<float>, float>
//                                                   foreach:add (form list)
//   multi_tensor_apply_kernel<..., PointwiseOpScalarFunctor<float,3,3,0>, multiplies<float>, float>
//                                                   foreach:addcmul (divides: addcdiv)
//   multi_tensor_apply_kernel<..., UnaryOpFunctor<float,1,1,0>,
//   _amp_foreach_non_finite_check_and_unscale_cuda_::{lambda...}>
//                                                   foreach:amp_non_finite_check_and_unscale
//   multi_tensor_apply_kernel<FusedOptimizerTensorListMetadata<4>, FusedAdamMathFunctor<float,4,1,0>, ...>
//                                                   fused_adamw (ADAM_MODE 1 is AdamW, 0 Adam)
#include <array>
#include <optional>
#include <string>
#include <utility>

#include "analysis/names/kernel_families.h"
#include "analysis/names/kernel_name_normalize.h"

namespace kscope::analysis {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

// The op a functor or lambda argument names: std::plus -> add, LerpFunctor -> lerp, Sqrt ->
// sqrt, the lambda of _amp_foreach_non_finite_check_and_unscale_cuda_ -> that function.
std::string OpOf(std::string_view arg) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kStd{{{"plus", "add"},
                                                                               {"minus", "sub"},
                                                                               {"multiplies", "mul"},
                                                                               {"divides", "div"},
                                                                               {"maximum", "max"},
                                                                               {"minimum", "min"}}};
  if (const size_t lambda = arg.find("::{lambda("); lambda != std::string_view::npos) {
    std::string_view function = KeyHead(arg.substr(0, lambda));
    while (function.starts_with("_")) function.remove_prefix(1);
    while (function.ends_with("_")) function.remove_suffix(1);
    if (function.ends_with("_cuda")) function.remove_suffix(5);
    std::string op(function);
    if (const size_t at = op.find("foreach_"); at != std::string::npos) op.erase(at, 8);  // amp_foreach_...
    return op;
  }
  std::string_view head = KeyHead(arg);
  for (const auto& [name, op] : kStd) {
    if (head == name) return std::string(op);
  }
  if (head.ends_with("Functor")) head.remove_suffix(7);
  return Lower(head);
}

// BinaryOpScalarListFunctor -> scalar_list, BinaryOpListAlphaFunctor -> list, UnaryOpFunctor -> "".
std::string_view FormOf(std::string_view functor) {
  if (functor.find("ScalarList") != std::string_view::npos) return "scalar_list";
  if (functor.find("Scalar") != std::string_view::npos) return "scalar";
  if (functor.find("List") != std::string_view::npos) return "list";
  return "";
}

}  // namespace

std::optional<KernelFamily> ForeachFamily(const KernelNameParts& parts) {
  const auto& a = parts.args;
  if (parts.name != "multi_tensor_apply_kernel" || a.size() < 2) return std::nullopt;
  const std::string_view functor = KeyHead(a[1]);
  const auto functor_args = KeyTemplateArgs(a[1]);
  const auto metadata_args = KeyTemplateArgs(a[0]);
  if (functor.starts_with("Fused") && functor.ends_with("MathFunctor")) {  // FusedAdamMathFunctor
    std::string optimizer = Lower(functor.substr(5, functor.size() - 16));
    if (optimizer == "adam" && functor_args.size() > 2 && functor_args[2] == "1") optimizer = "adamw";
    KernelFamily f{"fused_" + optimizer, {{"op", optimizer}}};
    if (!functor_args.empty()) AddFeature(f.features, "dtype", DtypeName(functor_args[0]));
    if (!metadata_args.empty()) AddFeature(f.features, "lists", metadata_args.back());
    return f;
  }
  if (a.size() < 3) return std::nullopt;
  std::string op = OpOf(a[2]);
  if (functor.starts_with("PointwiseOp")) op = op == "mul" ? "addcmul" : op == "div" ? "addcdiv" : op;
  KernelFamily f{"foreach:" + op, {{"op", op}}};
  AddFeature(f.features, "form", FormOf(functor));
  if (!functor_args.empty()) AddFeature(f.features, "dtype", DtypeName(functor_args[0]));
  if (!metadata_args.empty()) AddFeature(f.features, "lists", metadata_args.back());
  return f;
}

}  // namespace kscope::analysis
