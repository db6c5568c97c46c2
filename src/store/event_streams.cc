#include "store/event_streams.h"

namespace kscope::store {

namespace {
constexpr std::array<ColumnSpec, kernel::kCount> kKernelColumns = {{
    {"start", "GPU start time, ns (the export's clock)"},
    {"end", "GPU end time, ns"},
    {"device", "CUDA device id"},
    {"context", "CUDA context id"},
    {"stream", "CUDA stream id"},
    {"correlation", "correlation id linking to the launching api_call (NULL if unknown)"},
    {"global_pid", "nsys global process id (process in bits 24-47)"},
    {"name", "string id: demangled name with templates and parameters"},
    {"short_name", "string id: base function name"},
    {"mangled_name", "string id: mangled name (NULL if the export lacks it)"},
    {"grid_x", "grid size, x"},
    {"grid_y", "grid size, y"},
    {"grid_z", "grid size, z"},
    {"block_x", "block size, x"},
    {"block_y", "block size, y"},
    {"block_z", "block size, z"},
    {"registers", "registers per thread"},
    {"static_smem", "static shared memory per block, bytes"},
    {"dynamic_smem", "dynamic shared memory per block, bytes"},
    {"local_mem_per_thread", "local memory per thread, bytes"},
    {"graph_node", "CUDA graph node id when launched by a graph (NULL otherwise)"},
    {"launch_type", "CUPTI launch type (0 regular, 1 cooperative single, 2 cooperative multi)"},
}};
constexpr std::array<ColumnSpec, api::kCount> kApiColumns = {{
    {"start", "CPU start time, ns"},
    {"end", "CPU end time, ns"},
    {"global_tid", "nsys global thread id: pid in bits 24-47, tid in bits 0-23"},
    {"correlation", "correlation id of the GPU work it launched"},
    {"name", "string id: function name as traced (e.g. cudaLaunchKernel_v7000)"},
    {"return_value", "the call's return code"},
}};
constexpr std::array<ColumnSpec, memop::kCount> kMemopColumns = {{
    {"start", "GPU start time, ns"},
    {"end", "GPU end time, ns"},
    {"device", "CUDA device id"},
    {"context", "CUDA context id"},
    {"stream", "CUDA stream id"},
    {"correlation", "correlation id linking to the launching api_call"},
    {"global_pid", "nsys global process id"},
    {"operation", "string id: '[CUDA memcpy Host-to-Device]', '[CUDA memset]', ..."},
    {"is_memset", "1 for a memset, 0 for a copy"},
    {"bytes", "bytes copied or set"},
    {"copy_kind", "CUPTI copy kind (1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ...; NULL for memset)"},
    {"src_kind", "CUPTI memory kind of the source (0 pageable, 1 pinned, 2 device, 4 managed, ...)"},
    {"dst_kind", "CUPTI memory kind of the destination (memset: the memory set)"},
    {"graph_node", "CUDA graph node id when launched by a graph"},
}};
constexpr std::array<ColumnSpec, nvtx::kCount> kNvtxColumns = {{
    {"start", "CPU start time, ns"},
    {"end", "CPU end time, ns (NULL for a range never closed)"},
    {"event_type", "59 push/pop, 60 start/end, 70 push/pop (nvtxt), 71 start/end (nvtxt)"},
    {"domain", "string id of the domain name (NULL for the default domain)"},
    {"text", "string id of the range text"},
    {"global_tid", "thread that opened the range"},
    {"end_global_tid", "thread that closed a start/end range, when it differs (else NULL)"},
    {"parent", "row index of the tightest enclosing range on the same thread (NULL at top)"},
    {"depth", "nesting level on its thread, 0 at the top"},
}};
}  // namespace

const StreamSpec kKernelStream{"kernel", kKernelColumns};
const StreamSpec kApiStream{"api_call", kApiColumns};
const StreamSpec kMemopStream{"memop", kMemopColumns};
const StreamSpec kNvtxStream{"nvtx_range", kNvtxColumns};

namespace {
constexpr std::array<ColumnSpec, gpu_metric::kCount> kGpuMetricColumns = {{
    {"time", "sample time, ns (the export's clock)"},
    {"source", "the sampled GPU: nsys's typeId of its metrics (TARGET_INFO_GPU_METRICS), one per GPU"},
    {"metric", "string id: nsys's metric name, e.g. 'Tensor Active [Throughput %]'"},
    {"value", "the sample's value as nsys exports it (a whole percent for throughputs)"},
}};
}  // namespace
const StreamSpec kGpuMetricStream{"gpu_metric", kGpuMetricColumns};

}  // namespace kscope::store
