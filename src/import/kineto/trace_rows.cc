#include "import/kineto/trace_rows.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "import/kineto/trace_time.h"

namespace kscope::import::kineto {

EventKind KindOf(const TraceEvent& e) {
  if (e.ph == "M") return EventKind::kMetadata;
  if (e.ph != "X") return EventKind::kIgnored;  // flows (s, f), instants (i), counters
  // Each category as Kineto has spelled it: today's names, then those of PyTorch 1.8 to 1.12
  // (docs/kineto/formats.md).
  const std::string_view c = e.cat;
  if (c == "kernel" || c == "Kernel") return EventKind::kKernel;
  if (c == "gpu_memcpy" || c == "Memcpy") return EventKind::kMemcpy;
  if (c == "gpu_memset" || c == "Memset") return EventKind::kMemset;
  if (c == "cuda_runtime" || c == "cuda_driver" || c == "Runtime") return EventKind::kCudaCall;
  if (c == "cpu_op" || c == "Operator") {
    // Before user_annotation (PyTorch 1.8, 1.9) the profiler's steps were ops too.
    return AnnotationText(e.name) != e.name ? EventKind::kAnnotation : EventKind::kCpuOp;
  }
  if (c == "user_annotation") return EventKind::kAnnotation;
  // GPU-side copies of the annotations ("User" in PyTorch 1.8 and 1.9, "gpu_user_Annotation"
  // as Kineto spelled it from June 2021 to May 2022), the profiler's own rows.
  static constexpr std::array<std::string_view, 8> kIgnoredCats = {
      "gpu_user_annotation", "gpu_user_Annotation", "User", "Trace", "overhead", "python_function",
      "cuda_sync",           "cuda_profiler_range"};
  for (auto k : kIgnoredCats) {
    if (c == k) return EventKind::kIgnored;
  }
  return EventKind::kUnknown;
}

std::optional<CopyKind> CopyKindOf(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, CopyKind>, 10> kKinds = {{
      {"HtoD", {1, "Host-to-Device"}},
      {"DtoH", {2, "Device-to-Host"}},
      {"HtoA", {3, "Host-to-Array"}},
      {"AtoH", {4, "Array-to-Host"}},
      {"AtoA", {5, "Array-to-Array"}},
      {"AtoD", {6, "Array-to-Device"}},
      {"DtoA", {7, "Device-to-Array"}},
      {"DtoD", {8, "Device-to-Device"}},
      {"HtoH", {9, "Host-to-Host"}},
      {"PtoP", {10, "Peer-to-Peer"}},
  }};
  constexpr std::string_view kPrefix = "Memcpy ";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  const std::string_view kind = name.substr(kPrefix.size(), 4);
  for (const auto& [k, v] : kKinds) {
    if (k == kind) return v;
  }
  return std::nullopt;
}

void OpRangeText(const TraceEvent& e, std::string& out) {
  out.assign(e.name);
  if (const auto& seq = e.arg(Arg::kSequence); !seq.empty()) out.append(", seq = ").append(seq);
  // op_id marks the text as an op range; the trace's External id would make every op's
  // text a string of its own (hundreds of thousands in a long trace), so it is left out.
  out.append(", op_id = 0");
  if (const auto& dims = e.arg(Arg::kInputDims); !dims.empty()) out.append(", sizes = ").append(dims);
}

std::string_view AnnotationText(std::string_view name) {
  constexpr std::string_view kStep = "ProfilerStep#";
  if (name.starts_with(kStep) && ParseInteger(name.substr(kStep.size()))) return name.substr(0, kStep.size() - 1);
  return name;
}

int64_t GlobalPid(int64_t pid, std::optional<int64_t> rank) {
  const int64_t high = rank && *rank >= 0 && *rank < 0xFFFF ? (*rank + 1) << 48 : 0;
  return high | ((pid & 0xFFFFFF) << 24);
}

std::optional<std::array<int64_t, 3>> Dim3(std::string_view text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  std::array<int64_t, 3> v{};
  for (size_t i = 0; i < 3; ++i) {
    const size_t comma = i < 2 ? text.find(", ") : text.size();
    if (comma == std::string_view::npos) return std::nullopt;
    auto n = ParseInteger(text.substr(0, comma));
    if (!n) return std::nullopt;
    v[i] = *n;
    text = i < 2 ? text.substr(comma + 2) : std::string_view();
  }
  return v;
}

std::optional<int64_t> DtypeBytes(std::string_view dtype) {
  static constexpr std::array<std::pair<std::string_view, int64_t>, 16> kSizes = {{
      {"Float", 4},
      {"BFloat16", 2},
      {"Half", 2},
      {"Double", 8},
      {"Long", 8},
      {"Int", 4},
      {"Short", 2},
      {"Char", 1},
      {"Byte", 1},
      {"Bool", 1},
      {"ComplexHalf", 4},
      {"ComplexFloat", 8},
      {"ComplexDouble", 16},
      {"UInt16", 2},
      {"UInt32", 4},
      {"UInt64", 8},
  }};
  for (const auto& [name, bytes] : kSizes) {
    if (name == dtype) return bytes;
  }
  if (dtype.starts_with("Float8_")) return 1;  // Float8_e4m3fn, Float8_e5m2, ...
  return std::nullopt;
}

std::string CudaVersionText(int64_t v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

}  // namespace kscope::import::kineto
