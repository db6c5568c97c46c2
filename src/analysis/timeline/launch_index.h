// The two lookups behind linking a GPU operation to its launching call and the NVTX ranges
// around that call: operations by (process, correlation id), and a thread's ranges that
// contain a time span. LinkLaunches uses both over a whole run; the importer builds them
// before it reads the API calls, and links each call as it streams by.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "analysis/timeline/nsys_events.h"
#include "store/column_codec.h"

namespace kscope::analysis {

// GPU operations (kernels first, then memory operations) by process and correlation id:
// per process, the operations sorted by correlation id. Four bytes an operation; the
// correlation ids are read from the columns themselves, which must outlive the index.
class OpIndex {
 public:
  OpIndex(const std::vector<int64_t>& kernel_pid, const std::vector<int64_t>& kernel_corr,
          const std::vector<int64_t>& memop_pid, const std::vector<int64_t>& memop_corr);
  // The operations of process `pid` (a global tid's process bits) with correlation id
  // `corr`, in operation order; empty when there are none.
  [[nodiscard]] std::span<const uint32_t> Find(int64_t pid, int64_t corr) const;
  [[nodiscard]] size_t kernels() const { return n_kernels_; }

 private:
  struct Process {
    int64_t pid;
    std::vector<uint32_t> ops;  // by correlation id, then operation
  };
  [[nodiscard]] int64_t Corr(uint32_t op) const {
    return op < n_kernels_ ? (*kernel_corr_)[op] : (*memop_corr_)[op - n_kernels_];
  }
  const std::vector<int64_t>* kernel_corr_;
  const std::vector<int64_t>* memop_corr_;
  size_t n_kernels_;
  std::vector<Process> procs_;
};

// The NVTX ranges closed on the thread that opened them, by thread and start time. Ranges
// never closed end at `open_range_end`.
class CallRanges {
 public:
  CallRanges(const NsysEvents::Nvtx& nvtx, int64_t open_range_end);
  // Appends to `out` the ranges of thread `tid` that contain [start, end]: innermost first
  // when the thread's ranges nest, else in start order.
  void Containing(int64_t tid, int64_t start, int64_t end, std::vector<int32_t>& out) const;
  // The threads of process `pid` (global process id bits) that have ranges, in id order.
  [[nodiscard]] const std::vector<int64_t>& ThreadsOf(int64_t pid) const;

 private:
  struct Thread {
    std::vector<uint32_t> rows;  // NVTX rows by start time
    bool nested = true;          // every pair of ranges is nested or disjoint, none identical
  };
  [[nodiscard]] int64_t End(uint32_t r) const;
  const NsysEvents::Nvtx& n_;
  int64_t open_end_;
  std::unordered_map<int64_t, Thread> threads_;
  std::unordered_map<int64_t, std::vector<int64_t>> process_threads_;
};

// The process bits of a global thread or process id.
inline constexpr int64_t kPidMask = static_cast<int64_t>(0xFFFFFFFFFF000000ULL);

// Links one CUDA call (its thread, correlation id and time span): emit(op, range) for each GPU
// operation it launched and each NVTX range around it, range -1 when none is. Calls without a
// thread or correlation id launch nothing. `scratch` is reused from call to call.
template <class Emit>
void LinkCall(const OpIndex& ops, const CallRanges& ranges, int64_t tid, int64_t correlation, int64_t start,
              int64_t end, std::vector<int32_t>& scratch, Emit&& emit) {
  if (correlation == store::kNull || tid == store::kNull) return;
  const auto launched = ops.Find(tid & kPidMask, correlation);
  if (launched.empty()) return;
  scratch.clear();
  ranges.Containing(tid, start, end, scratch);
  for (uint32_t op : launched) {
    if (scratch.empty()) emit(op, -1);
    for (int32_t r : scratch) emit(op, r);
  }
}

}  // namespace kscope::analysis
