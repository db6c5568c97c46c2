// How one Kineto trace event reads as kscope's rows: the copy kinds of its memcpy names, the
// text of a CPU op as PyTorch's own NVTX op ranges spell it, process and thread ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "import/kineto/trace_reader.h"

namespace kscope::import::kineto {

// What kind of event it is, by its category ("cat"), as PyTorch 1.8 to today have named it.
enum class EventKind {
  kKernel,      // "kernel"; "Kernel" up to PyTorch 1.12
  kMemcpy,      // "gpu_memcpy"; "Memcpy" up to 1.12
  kMemset,      // "gpu_memset"; "Memset" up to 1.12
  kCudaCall,    // "cuda_runtime", "cuda_driver"; "Runtime" up to 1.10
  kCpuOp,       // "cpu_op"; "Operator" in 1.8 and 1.9: an ATen operator (its input shapes with record_shapes=True)
  kAnnotation,  // "user_annotation": record_function ranges, ProfilerStep#N (an "Operator" in 1.8 and 1.9)
  kMetadata,    // ph "M": process and thread names
  kIgnored,     // read and left: flows, GPU-side annotation copies, the profiler's own rows
  kUnknown,     // a category kscope does not know
};
EventKind KindOf(const TraceEvent& e);

// CUPTI's memcpy kind (CUPTI_ACTIVITY_MEMCPY_KIND_*) and nsys's label for it, from Kineto's
// name "Memcpy HtoD (Pageable -> Device)"; nullopt for a name it does not know.
struct CopyKind {
  int64_t id;
  std::string_view label;  // "Host-to-Device", as nsys's ENUM_CUDA_MEMCPY_OPER spells it
};
std::optional<CopyKind> CopyKindOf(std::string_view name);

// A CPU op as PyTorch's emit_nvtx names its range, which kscope's op analysis reads
// (analysis/stages/torch_ops.h): "aten::mm, seq = 12, op_id = 0, sizes = [[2, 4], [4, 8]]"
// (seq: the autograd sequence number, which ties a backward op to its forward op).
// Written into `out` (its buffer reused from one op to the next).
void OpRangeText(const TraceEvent& e, std::string& out);

// A record_function range's text: "ProfilerStep#7" is one iteration of the stage
// "ProfilerStep" (its number is its place among them); other names as they are.
std::string_view AnnotationText(std::string_view name);

// nsys's global process id, which kscope's stores use: the process ID in bits 24..47, and
// rank + 1 above them when the trace names its rank, so that the ranks of a job imported into
// one run sort in rank order. A thread's id adds its thread ID in the low 24 bits.
int64_t GlobalPid(int64_t pid, std::optional<int64_t> rank);
inline int64_t GlobalTid(int64_t global_pid, int64_t tid) { return global_pid | (tid & 0xFFFFFF); }

// "[512, 1, 1]" -> its three numbers; nullopt when it is not three integers.
std::optional<std::array<int64_t, 3>> Dim3(std::string_view text);

// The bytes of one element of a PyTorch dtype as record_param_comms names it ("Float": 4,
// "BFloat16": 2, "Float8_e4m3fn": 1); nullopt for a name it does not know.
std::optional<int64_t> DtypeBytes(std::string_view dtype);

// A CUDA version as Kineto writes it (13000, 12040) as kscope's manifests spell it ("13.0").
std::string CudaVersionText(int64_t v);

}  // namespace kscope::import::kineto
