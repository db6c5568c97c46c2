// One rank's share of a run's events: the selection every per-GPU figure of a multi-GPU job
// is computed from (its stages' instances, steady times, busy %, MFU and MBU, its kernel
// summary). A rank is a process (analysis/timeline/ranks.h); its share is the kernels and
// copies of that process, its CUDA API calls and its NVTX ranges. The analyses take the
// selection's events as they take a whole run's, so a rank's figures and a one-process run's
// are computed by the same code.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/ranks.h"
#include "util/status.h"

namespace kscope::analysis {

struct RankSelection {
  RunRank rank;
  NsysEvents events;                 // the rank's events, in the run's order; NVTX parents renumbered
  std::vector<int64_t> kernel_rows;  // for each of events.kernels, its row in the run's kernel stream
  std::vector<int64_t> memop_rows;   // for each of events.memops, its row in the run's memop stream
};

// nsys's global thread id is its process's global id with the thread ID in the low 24 bits.
inline bool InProcess(int64_t global_tid, int64_t global_pid) {
  return (global_tid & ~int64_t{0xFFFFFF}) == global_pid;
}

// The rank's share of `run` (the run's events, LoadNsysEvents).
RankSelection SelectRank(const NsysEvents& run, const RunRank& rank);

// The rank numbered `rank` among the run's `ranks` (ReadRanks); else an error whose one line
// names the ranks there are.
Result<RunRank> FindRank(const std::vector<RunRank>& ranks, int64_t rank, int64_t run_id);

// The elements of `all` at `rows`, in that order.
template <typename T>
std::vector<T> AtRows(const std::vector<T>& all, const std::vector<int64_t>& rows) {
  std::vector<T> out;
  out.reserve(rows.size());
  for (int64_t r : rows) out.push_back(all[static_cast<size_t>(r)]);
  return out;
}

}  // namespace kscope::analysis
