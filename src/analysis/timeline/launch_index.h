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
// The operations of one (process, correlation id) form a group, named by the position of
// its first operation (`Group::id`, below size()).
class OpIndex {
 public:
  OpIndex(const std::vector<int64_t>& kernel_pid, const std::vector<int64_t>& kernel_corr,
          const std::vector<int64_t>& memop_pid, const std::vector<int64_t>& memop_corr);
  struct Group {
    uint32_t id = 0;
    std::span<const uint32_t> ops;  // in operation order; empty when there are none
  };
  // The operations of process `pid` (a global tid's process bits) with correlation id `corr`.
  [[nodiscard]] Group Find(int64_t pid, int64_t corr) const;
  [[nodiscard]] size_t kernels() const { return n_kernels_; }
  [[nodiscard]] size_t size() const { return ops_.size(); }  // operations indexed (group ids are below)

 private:
  struct Process {
    int64_t pid;
    size_t begin, end;  // its operations in ops_, by correlation id, then operation
  };
  [[nodiscard]] int64_t Corr(uint32_t op) const {
    return op < n_kernels_ ? (*kernel_corr_)[op] : (*memop_corr_)[op - n_kernels_];
  }
  const std::vector<int64_t>* kernel_corr_;
  const std::vector<int64_t>* memop_corr_;
  size_t n_kernels_;
  std::vector<uint32_t> ops_;
  std::vector<Process> procs_;
};

// Which call owns each group of operations. CUPTI gives every CUDA call a correlation id of
// its own, so a second call with an earlier call's (process, correlation id) comes from a
// broken or hostile file: it links nothing, and is counted. Without this, k calls sharing
// the id of k operations would make k * k links (quadratic memory and time).
//
// Calls linked in parts (threads) keep one LaunchClaims each; each part records which group
// each of its owning calls claimed and how many links it made, in order, so that the parts'
// links can be joined keeping only the first part's (JoinClaims), whatever the threads did.
class LaunchClaims {
 public:
  explicit LaunchClaims(const OpIndex& ops) : claimed_(ops.size(), false) {}
  // True when the group was not claimed yet in this part (and claims it).
  bool Claim(uint32_t group) {
    if (claimed_[group]) {
      ++duplicates_;
      return false;
    }
    claimed_[group] = true;
    return true;
  }
  // After a claiming call's links: `links` were made for `group`.
  void Made(uint32_t group, uint64_t links) { made_.push_back({group, links}); }
  // More links made for the last claimed group, after Made.
  void MadeMore(uint64_t links) { made_.back().links += links; }
  // Calls of this part that found their group claimed earlier in the part.
  [[nodiscard]] int64_t duplicates() const { return duplicates_; }

 private:
  friend class ClaimsJoin;
  struct Claimed {
    uint32_t group;
    uint64_t links;
  };
  std::vector<bool> claimed_;
  std::vector<Claimed> made_;
  int64_t duplicates_ = 0;
};

// Joins parts linked apart, in part order: Part(claims, keep) calls keep(n, true) for each
// run of n links of a group no earlier part claimed, keep(n, false) for a run to drop.
class ClaimsJoin {
 public:
  explicit ClaimsJoin(const OpIndex& ops) : claimed_(ops.size(), false) {}
  template <class Keep>
  void Part(const LaunchClaims& part, Keep&& keep) {
    duplicates_ += part.duplicates_;
    for (const auto& m : part.made_) {
      const bool first = !claimed_[m.group];
      if (!first) ++duplicates_;
      claimed_[m.group] = true;
      keep(m.links, first);
    }
  }
  // Calls, over all parts, whose operations an earlier call had already launched.
  [[nodiscard]] int64_t duplicates() const { return duplicates_; }

 private:
  std::vector<bool> claimed_;
  int64_t duplicates_ = 0;
};

// The NVTX ranges closed on the thread that opened them, by thread and start time. Ranges
// never closed end at `open_range_end`.
//
// Bounded whatever the file: a call is linked to at most kMaxRangesPerCall ranges, and
// finding them among nested ranges walks at most kMaxRangeWalk of them (nesting that deep is
// a broken or hostile file's; real NVTX and PyTorch op nesting stays under a hundred levels).
class CallRanges {
 public:
  static constexpr size_t kMaxRangesPerCall = 256;
  static constexpr size_t kMaxRangeWalk = 4096;

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
    // Ranges that do not nest: the latest end over each power-of-two-aligned block of rows
    // (a segment tree, leaves at [size, 2 size)), so that the ranges holding a call are found
    // without reading the ones that do not.
    std::vector<int64_t> max_end;
  };
  [[nodiscard]] int64_t End(uint32_t r) const;
  void Holding(const Thread& t, size_t node, size_t lo, size_t hi, size_t before, int64_t end,
               std::vector<int32_t>& out) const;
  const NsysEvents::Nvtx& n_;
  int64_t open_end_;
  std::unordered_map<int64_t, Thread> threads_;
  std::unordered_map<int64_t, std::vector<int64_t>> process_threads_;
};

// The process bits of a global thread or process id.
inline constexpr int64_t kPidMask = static_cast<int64_t>(0xFFFFFFFFFF000000ULL);

// Links one CUDA call (its thread, correlation id and time span): emit(op, range) for each GPU
// operation it launched and each NVTX range around it, range -1 when none is. Calls without a
// thread or correlation id launch nothing; nor does a call whose operations an earlier call of
// the part already claimed (`claims`). `scratch` is reused from call to call. Returns the
// links made.
template <class Emit>
uint64_t LinkCall(const OpIndex& ops, const CallRanges& ranges, LaunchClaims& claims, int64_t tid, int64_t correlation,
                  int64_t start, int64_t end, std::vector<int32_t>& scratch, Emit&& emit) {
  if (correlation == store::kNull || tid == store::kNull) return 0;
  const OpIndex::Group launched = ops.Find(tid & kPidMask, correlation);
  if (launched.ops.empty() || !claims.Claim(launched.id)) return 0;
  scratch.clear();
  ranges.Containing(tid, start, end, scratch);
  uint64_t links = 0;
  for (uint32_t op : launched.ops) {
    if (scratch.empty()) emit(op, -1), ++links;
    for (int32_t r : scratch) emit(op, r), ++links;
  }
  claims.Made(launched.id, links);
  return links;
}

}  // namespace kscope::analysis
