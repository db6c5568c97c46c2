// What the timeline diagnosis needs of a run's events, loaded once from the store and then
// diagnosed for any number of window sets (the whole run, one NVTX stage's instances, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/timeline/intervals.h"
#include "analysis/timeline/nsys_events.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// A memory operation's direction, from CUPTI's copy kind (ENUM_CUDA_MEMCPY_OPER).
enum class CopyDirection : uint8_t {
  kHtoD,    // 1 host to device
  kDtoH,    // 2 device to host
  kDtoD,    // 8 device to device
  kPtoP,    // 10 peer to peer
  kOther,   // host to host, arrays, unified memory, unknown
  kMemset,  // a memset, not a copy
};

// The host side of a copy, from CUPTI's memory kinds (ENUM_CUDA_MEM_KIND: 0 pageable,
// 1 pinned): pageable when either side is pageable memory, pinned when either side is
// pinned and none pageable, else none (device, managed and array memory; memsets).
enum class HostMemory : uint8_t { kNone, kPageable, kPinned };

struct ApiFunction {
  std::string name;   // as cuda_api_sum shows it (ApiDisplayName)
  bool synchronizes;  // SynchronizesHost
};

struct TimelineEvents {
  struct Kernels {  // by start time
    std::vector<int64_t> start, end;
  } kernels;
  struct Memops {  // copies and sets, by start time
    std::vector<int64_t> start, end, bytes;
    std::vector<CopyDirection> direction;
    std::vector<HostMemory> host;
  } memops;
  struct Api {  // CUDA runtime and driver calls of every thread, by start time
    std::vector<int64_t> start, end;
    std::vector<uint32_t> function;  // index into `functions`
  } api;
  std::vector<ApiFunction> functions;

  // Derived once. Unions over all devices, streams and threads.
  IntervalSet gpu_busy;   // kernels and memory operations
  IntervalSet api_busy;   // time some thread spends inside a CUDA call
  IntervalSet sync_busy;  // time some thread spends inside a synchronizing call
  int64_t longest_api_ns = 0;
  TimeWindow span;  // first start to last end of any GPU operation or API call; empty if none
};

// `nsys`: the run's events when loaded already; their kernel and API columns are reused.
// `memop_rows`: the rows of the run's copies and sets to take (a rank's: RankSelection), else all.
Result<TimelineEvents> LoadTimelineEvents(store::Store& store, int64_t run_id, const NsysEvents* nsys = nullptr,
                                          const std::vector<int64_t>* memop_rows = nullptr);

}  // namespace kscope::analysis
