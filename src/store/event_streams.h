// The per-run event streams and their columns, declared once. Column indexes are the enums
// below; docs/schema.md documents each column.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace kscope::store {

struct ColumnSpec {
  std::string_view name;
  std::string_view doc;
};

struct StreamSpec {
  std::string_view name;
  std::span<const ColumnSpec> columns;
};

// GPU kernel executions (CUPTI_ACTIVITY_KIND_KERNEL).
namespace kernel {
enum Col : int {
  kStart,
  kEnd,
  kDevice,
  kContext,
  kStream,
  kCorrelation,
  kGlobalPid,
  kName,
  kShortName,
  kMangledName,
  kGridX,
  kGridY,
  kGridZ,
  kBlockX,
  kBlockY,
  kBlockZ,
  kRegisters,
  kStaticSmem,
  kDynamicSmem,
  kLocalMemPerThread,
  kGraphNode,
  kLaunchType,
  kCount
};
}
// CUDA runtime and driver API calls (CUPTI_ACTIVITY_KIND_RUNTIME).
namespace api {
enum Col : int { kStart, kEnd, kGlobalTid, kCorrelation, kName, kReturnValue, kCount };
}
// GPU memory copies and sets (CUPTI_ACTIVITY_KIND_MEMCPY / _MEMSET).
namespace memop {
enum Col : int {
  kStart,
  kEnd,
  kDevice,
  kContext,
  kStream,
  kCorrelation,
  kGlobalPid,
  kOperation,
  kIsMemset,
  kBytes,
  kCopyKind,
  kSrcKind,
  kDstKind,
  kGraphNode,
  kCount
};
}
// NVTX ranges, push/pop and start/end (NVTX_EVENTS).
namespace nvtx {
// event_type values: nsys's ENUM_NSYS_EVENT_TYPE (nvtx and nvtxt ranges; 75 names a domain).
inline constexpr int64_t kPushPop = 59, kStartEnd = 60, kNvtxtPushPop = 70, kNvtxtStartEnd = 71;
inline constexpr int64_t kDomainCreate = 75;
enum Col : int { kStart, kEnd, kEventType, kDomain, kText, kGlobalTid, kEndGlobalTid, kParent, kDepth, kCount };
}  // namespace nvtx

// nsys's GPU metrics sampling (GPU_METRICS with TARGET_INFO_GPU_METRICS), the metrics kscope
// reads: one row per sample and metric.
namespace gpu_metric {
enum Col : int { kTime, kSource, kMetric, kValue, kCount };
}

extern const StreamSpec kKernelStream;
extern const StreamSpec kApiStream;
extern const StreamSpec kMemopStream;
extern const StreamSpec kNvtxStream;

extern const StreamSpec kGpuMetricStream;

inline constexpr std::array<const StreamSpec*, 5> kAllStreams = {&kKernelStream, &kApiStream, &kMemopStream,
                                                                 &kNvtxStream, &kGpuMetricStream};

}  // namespace kscope::store
