// What the nsys summaries need of a run, in a form that holds no CUDA API call whole: the
// GPU operations and NVTX ranges, the calls' durations by name, and the links from each
// operation to the ranges around its launching call. The importer gathers it while it
// streams an export (a call launching no GPU work leaves only its duration); FactsFromEvents
// derives it from a stored run's events.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/ranks.h"

namespace kscope::analysis {

// Durations in nanoseconds, most in four bytes: those outside [0, 2^32) ns (4.3 s) are kept
// apart, at full width. Deques, here and below: they grow without a vector's spare
// capacity, and free their blocks as they are moved from.
struct Durations {
  std::deque<uint32_t> narrow;
  std::deque<int64_t> wide;

  void Add(int64_t d) {
    if (d >= 0 && d <= int64_t{UINT32_MAX}) {
      narrow.push_back(static_cast<uint32_t>(d));
    } else {
      wide.push_back(d);
    }
  }
  // All of them, the narrow ones first.
  [[nodiscard]] std::vector<int64_t> All() const {
    std::vector<int64_t> all(narrow.begin(), narrow.end());
    all.insert(all.end(), wide.begin(), wide.end());
    return all;
  }
};

struct NsysFacts {
  struct Kernels {
    std::vector<int64_t> start, end, correlation;
    std::vector<int32_t> name;  // the store's string ids, which fit four bytes (checked)
  } kernels;
  NsysEvents::Memops memops;
  NsysEvents::Nvtx nvtx;
  // Every CUDA API call's duration, by function name id.
  std::unordered_map<int64_t, Durations> api_durations;
  // One per (operation, launching call, NVTX range holding the call; -1 when none), in the
  // order LinkLaunches gives them. `op` is a kernel's index, or kMemop | a memory operation's.
  struct Launch {
    uint32_t op;
    int32_t range;
    uint32_t thread;  // the launching call's thread, as an index into `threads`
  };
  static constexpr uint32_t kMemop = uint32_t{1} << 31;
  std::deque<Launch> launches;
  std::vector<int64_t> threads;  // global thread ids
  // The rank the launched process's recorded environment names (a launcher's one profiled rank).
  std::optional<EnvRank> launched_rank;
};

// `tid`'s index in `threads`, added when new. A run has few launching threads.
inline uint32_t ThreadIndex(std::vector<int64_t>& threads, int64_t tid) {
  for (size_t i = threads.size(); i-- > 0;) {
    if (threads[i] == tid) return static_cast<uint32_t>(i);
  }
  threads.push_back(tid);
  return static_cast<uint32_t>(threads.size() - 1);
}

// Where ranges never closed end: the last timestamp of the run's NVTX ranges.
int64_t OpenRangeEnd(const NsysEvents::Nvtx& nvtx);

Result<NsysFacts> FactsFromEvents(const NsysEvents& events);

}  // namespace kscope::analysis
