// Families of PyTorch ATen kernels, by the operation they run. ATen's elementwise loops take
// the operation as a functor or lambda template argument:
//   vectorized_elementwise_kernel<8, CUDAFunctor_add<BFloat16>, array<char*,3>>
//   elementwise_kernel<128, 4, gpu_kernel_impl_nocast<BinaryFunctor<..., MulFunctor<float>>>::{lambda(int)#1}>
//   unrolled_elementwise_kernel<direct_copy_kernel_cuda::{lambda()#3}::...::{lambda(float)#1}, ...>
// and reductions an Ops type (reduce_kernel<512, 1, ReduceOp<BFloat16, ArgMaxOps<float>, ...>>).
// Family elementwise:<op> or reduce:<op>; loop variant, vector width, unrolling and data type
// are features.
#include <optional>
#include <string>

#include "analysis/names/kernel_families.h"
#include "analysis/names/kernel_name_normalize.h"

namespace kscope::analysis {

namespace {

struct Operation {
  std::string op, dtype, compute, form;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

std::string_view FirstArg(std::string_view key) {
  const auto args = KeyTemplateArgs(key);
  return args.empty() ? std::string_view() : args.front();
}

// cos_kernel_cuda -> cos, pow_tensor_scalar_kernel_impl -> pow, direct_copy_kernel_cuda -> copy,
// GeluCUDAKernelImpl -> gelu, launch_clamp_scalar -> clamp.
std::string OpFromFunction(std::string_view name) {
  constexpr std::string_view kSuffixes[] = {"_cuda_out",      "_kernel_cuda",   "_kernel_impl", "_kernel",
                                            "_functor",       "_cuda",          "_impl",        "_out",
                                            "_tensor_scalar", "_tensor_tensor", "_scalar",      "CUDAKernelImpl"};
  if (name.starts_with("launch_")) name.remove_prefix(7);
  for (bool again = true; again;) {
    again = false;
    for (const std::string_view suffix : kSuffixes) {
      if (name.size() > suffix.size() && name.ends_with(suffix)) {
        name.remove_suffix(suffix.size());
        again = true;
      }
    }
  }
  return name.ends_with("copy") ? "copy" : Lower(name);
}

// Where the lambda that a functor argument ends in starts: `f<T>::{lambda()#1}::...`, not a
// lambda inside f's own template arguments; npos when there is none.
size_t TopLevelLambda(std::string_view f) {
  int angle = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '<') ++angle;
    if (f[i] == '>' && angle > 0) --angle;
    if (angle == 0 && f.substr(i).starts_with("::{lambda(")) return i;
  }
  return std::string_view::npos;
}

// The parameter type of the innermost lambda that has one: its element type.
std::string LambdaDtype(std::string_view f) {
  for (size_t at = f.rfind("{lambda("); at != std::string_view::npos; at = f.rfind("{lambda(", at - 1)) {
    const size_t start = at + 8;
    const size_t end = f.find(")#", start);
    if (end != std::string_view::npos && end > start) {
      const std::string_view params = f.substr(start, end - start);  // (Half,Half): the first one's
      return DtypeName(params.substr(0, params.find(',')));
    }
    if (at == 0) break;
  }
  return "";
}

// The operation a functor or lambda template argument runs.
Operation ReadOperation(std::string_view f) {
  const std::string_view head = KeyHead(f);
  const auto args = KeyTemplateArgs(f);
  if ((head == "gpu_kernel_impl_nocast" || head == "gpu_kernel_impl") && !args.empty()) return ReadOperation(args[0]);
  Operation o;
  if (const size_t lambda = TopLevelLambda(f); lambda != std::string_view::npos) {
    o.op = OpFromFunction(KeyHead(f.substr(0, lambda)));
    o.dtype = LambdaDtype(f);
  } else if (head.starts_with("CUDAFunctorOnSelf_")) {
    o = {std::string(head.substr(18)), DtypeName(FirstArg(f)), "", "scalar"};
  } else if (head.starts_with("CUDAFunctor_")) {
    o = {std::string(head.substr(12)), DtypeName(FirstArg(f)), "", ""};
  } else if ((head == "BinaryFunctor" || head == "AUnaryFunctor" || head == "BUnaryFunctor") && args.size() == 4) {
    const std::string_view inner = KeyHead(args[3]);
    if (TopLevelLambda(args[3]) != std::string_view::npos) {  // threshold_kernel_impl<Half>::{lambda(Half,Half)#1}
      o.op = ReadOperation(args[3]).op;
    } else {
      o.op = Lower(inner.ends_with("Functor") ? inner.substr(0, inner.size() - 7) : inner);
      o.compute = DtypeName(FirstArg(args[3]));
    }
    o.dtype = DtypeName(args[0]);
    if (head != "BinaryFunctor") o.form = "scalar";  // one operand is a scalar
  } else if (head.ends_with("Functor")) {
    o = {Lower(head.substr(0, head.size() - 7)), DtypeName(FirstArg(f)), "", ""};
  } else {
    o.op = OpFromFunction(head);
  }
  if (o.compute == o.dtype) o.compute.clear();
  return o;
}

KernelFamily OperationFamily(std::string_view kind, const Operation& o, std::string_view variant) {
  KernelFamily f{std::string(kind) + ":" + o.op, {}};
  AddFeature(f.features, "op", o.op);
  AddFeature(f.features, "variant", variant);
  AddFeature(f.features, "dtype", o.dtype);
  AddFeature(f.features, "compute", o.compute);
  AddFeature(f.features, "form", o.form);
  return f;
}

// ATen's loops (Loops.cuh, CUDALoops.cuh, RangeFactories.cu): the variant is the loop,
// vector the elements one vectorized access moves, unroll the elements a thread handles,
// block the threads per block; cast=yes when the loop converts types as it loads.
std::optional<KernelFamily> ElementwiseFamily(const std::string& name, const std::vector<std::string>& a) {
  if (name == "vectorized_elementwise_kernel" && a.size() >= 2) {
    auto f = OperationFamily("elementwise", ReadOperation(a[1]), "vectorized");
    AddFeature(f.features, "vector", a[0]);
    return f;
  }
  if (name == "unrolled_elementwise_kernel" && a.size() >= 3) {
    auto f = OperationFamily("elementwise", ReadOperation(a[0]), "unrolled");
    AddFeature(f.features, "unroll", a[2]);
    if (a.size() >= 6 && a[5].starts_with("LoadWithCast")) AddFeature(f.features, "cast", "yes");
    return f;
  }
  if (name == "elementwise_kernel" && a.size() >= 3) {  // launch_legacy_kernel<threads, unroll>
    auto f = OperationFamily("elementwise", ReadOperation(a[2]), "legacy");
    AddFeature(f.features, "block", a[0]);
    AddFeature(f.features, "unroll", a[1]);
    return f;
  }
  if (name == "elementwise_kernel_with_index" && a.size() >= 2) {  // arange, linspace
    auto f = OperationFamily("elementwise", ReadOperation(a[1]), "with_index");
    AddFeature(f.features, "index", DtypeName(a[0]));
    return f;
  }
  return std::nullopt;
}

// reduce_kernel<threads, output vector, ReduceOp<scalar, Ops, index, out, unroll, input vector>>.
std::optional<KernelFamily> ReduceFamily(const std::vector<std::string>& a) {
  if (a.size() < 3 || KeyHead(a[2]) != "ReduceOp") return std::nullopt;
  const auto r = KeyTemplateArgs(a[2]);
  if (r.size() < 6) return std::nullopt;
  const std::string_view ops = KeyHead(r[1]);
  const auto ops_args = KeyTemplateArgs(r[1]);
  Operation o;
  if (ops == "func_wrapper_t" && ops_args.size() == 2) {
    o.op = ReadOperation(ops_args[1]).op;  // func_wrapper_t<acc, sum_functor<...>::...{lambda(float,float)#1}>
    o.compute = LambdaDtype(ops_args[1]);
  } else {
    o.op = Lower(ops.ends_with("Ops") ? ops.substr(0, ops.size() - 3) : ops);
    if (!ops_args.empty()) o.compute = DtypeName(ops_args.size() > 1 ? ops_args[1] : ops_args[0]);
  }
  o.dtype = DtypeName(r[0]);
  if (o.compute == o.dtype) o.compute.clear();
  auto f = OperationFamily("reduce", o, "");
  AddFeature(f.features, "out", DtypeName(r[3]));
  AddFeature(f.features, "vector", r[5]);
  AddFeature(f.features, "block", a[0]);
  return f;
}

}  // namespace

std::optional<KernelFamily> AtenFamily(const KernelNameParts& parts) {
  const std::string& n = parts.name;
  const auto& a = parts.args;
  if (auto f = ElementwiseFamily(n, a)) return f;
  if (n == "reduce_kernel") return ReduceFamily(a);
  if (n.starts_with("CatArrayBatchedCopy") && a.size() >= 3) {  // Shape.cu
    KernelFamily f{"cat", {{"op", "cat"}}};
    AddFeature(f.features, "variant", n.size() > 20 ? std::string_view(n).substr(20) : "");
    AddFeature(f.features, "element_bytes", FirstArg(a[0]));  // OpaqueType<bytes>
    AddFeature(f.features, "dims", a[2]);
    if (a.size() >= 7) AddFeature(f.features, "vector", a[6]);
    return f;
  }
  if (n.starts_with("indexSelect") && n.ends_with("Index") && n.size() > 16 && a.size() >= 2) {  // Indexing.cu
    KernelFamily f{"index_select", {{"op", "index_select"}}};
    AddFeature(f.features, "variant", Lower(n.substr(11, n.size() - 16)) + "_index");
    AddFeature(f.features, "dtype", DtypeName(a[0]));
    AddFeature(f.features, "index", DtypeName(a[1]));
    return f;
  }
  if (n == "index_elementwise_kernel" && a.size() == 3) {  // IndexKernel.cu: index, index_put
    const auto impl = ArgsOf(a[2], "gpu_index_kernel");
    if (!impl || impl->empty()) return std::nullopt;
    const std::string op = OpFromFunction(KeyHead((*impl)[0]));
    KernelFamily f{op, {{"op", op}}};
    if (const auto bytes = ArgsOf((*impl)[0], "OpaqueType"); bytes && bytes->size() == 1) {
      AddFeature(f.features, "element_bytes", bytes->front());
    }
    AddFeature(f.features, "block", a[0]);
    AddFeature(f.features, "unroll", a[1]);
    return f;
  }
  if (n == "_scatter_gather_elementwise_kernel" && a.size() == 3) {  // ScatterGatherKernel.cu
    const auto internal = ArgsOf(a[2], "_cuda_scatter_gather_internal_kernel");
    if (!internal || internal->size() != 3) return std::nullopt;
    const std::string op = (*internal)[0] == "1" ? "scatter" : "gather";  // is_scatter_like
    KernelFamily f{op, {{"op", op}, {"variant", "scatter_gather"}}};
    if (const auto bytes = ArgsOf((*internal)[1], "OpaqueType"); bytes && bytes->size() == 1) {
      AddFeature(f.features, "element_bytes", bytes->front());
    }
    AddFeature(f.features, "index", DtypeName((*internal)[2]));
    if (const size_t call = a[2].find("operator()<"); call != std::string::npos) {  // TensorAssign, ReduceAdd
      const auto reduce = KeyTemplateArgs(std::string_view(a[2]).substr(call + 10));
      std::string_view r = reduce.size() == 1 ? reduce[0] : "";
      if (r.starts_with("Tensor") || r.starts_with("Reduce")) r.remove_prefix(6);  // TensorAssign -> assign
      AddFeature(f.features, "reduce", Lower(r));
    }
    return f;
  }
  if (auto f = ForeachFamily(parts)) return f;
  if (n == "vectorized_gather_kernel" && a.size() == 2) {  // IndexKernelUtils.cu
    KernelFamily f{"gather", {{"op", "gather"}}};
    AddFeature(f.features, "alignment", a[0]);
    AddFeature(f.features, "index", DtypeName(a[1]));
    return f;
  }
  if (n == "distribution_elementwise_grid_stride_kernel" && a.size() == 4) {  // DistributionTemplates.h
    Operation o = ReadOperation(a[2]);
    o.dtype = DtypeName(FirstArg(a[3]));  // distribution_nullary_kernel<scalar, ...>
    auto f = OperationFamily("distribution", o, "");
    AddFeature(f.features, "unroll", a[1]);
    return f;
  }
  return std::nullopt;
}

}  // namespace kscope::analysis
