// Nesting of NVTX ranges on a thread: each range's parent is the tightest range on the same
// thread that contains it (smallest (child.start - parent.start) + (parent.end - child.end)),
// as nsys's NVTX projection reports define it.
#pragma once

#include <cstdint>
#include <vector>

namespace kscope::analysis {

struct NvtxInterval {
  int64_t start;
  int64_t end;
  int64_t thread;     // nsys global thread id
  bool nests = true;  // false for ranges that end on another thread: they take no part
};

struct NvtxNesting {
  std::vector<int64_t> parent;  // index of the parent range, -1 at the top or when not nesting
  std::vector<int64_t> depth;   // 0 at the top; -1 when undefined (not nesting, or a cycle of equal ranges)
};

NvtxNesting ComputeNvtxNesting(const std::vector<NvtxInterval>& ranges);

}  // namespace kscope::analysis
