#include "analysis/launch_links.h"

#include <algorithm>
#include <unordered_map>

#include "store/column_codec.h"

namespace kscope::analysis {

namespace {

using store::kNull;
constexpr int64_t kPidMask = static_cast<int64_t>(0xFFFFFFFFFF000000ULL);

// GPU operations by correlation id within one process: a dense table of chain heads when
// the ids are dense (as CUPTI hands them out), a hash table otherwise.
struct ProcessOps {
  int64_t pid = 0;
  int64_t min_corr = INT64_MAX, max_corr = INT64_MIN;
  size_t count = 0;
  std::vector<int32_t> dense;
  std::unordered_map<int64_t, int32_t> sparse;

  [[nodiscard]] int32_t Head(int64_t corr) const {
    if (!dense.empty()) {
      return corr < min_corr || corr > max_corr ? -1 : dense[static_cast<size_t>(corr - min_corr)];
    }
    auto it = sparse.find(corr);
    return it == sparse.end() ? -1 : it->second;
  }
  int32_t& Slot(int64_t corr) {
    if (!dense.empty()) return dense[static_cast<size_t>(corr - min_corr)];
    return sparse.try_emplace(corr, -1).first->second;
  }
};

struct ThreadRanges {
  std::vector<uint32_t> rows;  // NVTX rows by start time
  bool nested = true;          // every pair of ranges is nested or disjoint, none identical
};

}  // namespace

std::vector<LaunchLink> LinkLaunches(const NsysEvents& e, int64_t open_range_end) {
  const auto& k = e.kernels;
  const auto& m = e.memops;
  const auto& a = e.api;
  const auto& n = e.nvtx;
  const size_t n_kernels = k.start.size();
  const size_t n_ops = n_kernels + m.start.size();
  auto corr_of = [&](size_t i) { return i < n_kernels ? k.correlation[i] : m.correlation[i - n_kernels]; };
  auto pid_of = [&](size_t i) { return i < n_kernels ? k.global_pid[i] : m.global_pid[i - n_kernels]; };

  // Index the operations: per process, correlation id -> first op, then next[] chains.
  std::vector<ProcessOps> procs;
  auto proc_index = [&](int64_t pid) -> ProcessOps* {
    for (auto& p : procs) {
      if (p.pid == pid) return &p;
    }
    return nullptr;
  };
  for (size_t i = 0; i < n_ops; ++i) {
    if (corr_of(i) == kNull || pid_of(i) == kNull) continue;
    ProcessOps* p = proc_index(pid_of(i));
    if (p == nullptr) {
      procs.push_back({});
      p = &procs.back();
      p->pid = pid_of(i);
    }
    p->min_corr = std::min(p->min_corr, corr_of(i));
    p->max_corr = std::max(p->max_corr, corr_of(i));
    ++p->count;
  }
  for (auto& p : procs) {
    const auto span = static_cast<uint64_t>(p.max_corr) - static_cast<uint64_t>(p.min_corr);
    if (span < 12 * p.count + 4096) p.dense.assign(span + 1, -1);  // 4 bytes a slot beats a hash node
  }
  std::vector<int32_t> next(n_ops, -1);
  for (size_t i = n_ops; i-- > 0;) {
    if (corr_of(i) == kNull || pid_of(i) == kNull) continue;
    int32_t& head = proc_index(pid_of(i))->Slot(corr_of(i));
    next[i] = head;
    head = static_cast<int32_t>(i);
  }

  // Ranges by thread, in start order, and whether each thread's ranges nest.
  auto range_end = [&](uint32_t r) { return n.end[r] == kNull ? open_range_end : n.end[r]; };
  std::unordered_map<int64_t, ThreadRanges> threads;
  for (size_t r = 0; r < n.start.size(); ++r) {
    if (n.end_global_tid[r] == kNull) threads[n.global_tid[r]].rows.push_back(static_cast<uint32_t>(r));
  }
  for (auto& [tid, t] : threads) {
    std::sort(t.rows.begin(), t.rows.end(), [&](uint32_t x, uint32_t y) {
      if (n.start[x] != n.start[y]) return n.start[x] < n.start[y];
      return range_end(x) > range_end(y);
    });
    std::vector<uint32_t> stack;
    for (uint32_t r : t.rows) {
      while (!stack.empty() && range_end(stack.back()) < n.start[r]) stack.pop_back();
      if (!stack.empty() && (range_end(r) > range_end(stack.back()) ||
                             (n.start[r] == n.start[stack.back()] && range_end(r) == range_end(stack.back())))) {
        t.nested = false;
        break;
      }
      stack.push_back(r);
    }
  }

  std::vector<LaunchLink> links;
  links.reserve(n_ops);
  std::vector<int32_t> containing;
  const ProcessOps* last = nullptr;
  for (size_t c = 0; c < a.start.size(); ++c) {
    if (a.correlation[c] == kNull || a.global_tid[c] == kNull) continue;
    const int64_t pid = a.global_tid[c] & kPidMask;
    if (last == nullptr || last->pid != pid) last = proc_index(pid);
    if (last == nullptr) continue;
    const int32_t head = last->Head(a.correlation[c]);
    if (head < 0) continue;

    // The ranges containing [start, end] of this call on its thread.
    containing.clear();
    const int64_t s = a.start[c];
    const int64_t en = a.end[c];
    if (auto t = threads.find(a.global_tid[c]); t != threads.end()) {
      const auto& rows = t->second.rows;
      const auto after =
          std::upper_bound(rows.begin(), rows.end(), s, [&](int64_t v, uint32_t r) { return v < n.start[r]; });
      if (t->second.nested) {
        // Every range holding the call is the last range started before it or its ancestor.
        int64_t r = after == rows.begin() ? kNull : *(after - 1);
        while (r != kNull) {
          if (range_end(static_cast<uint32_t>(r)) >= en) containing.push_back(static_cast<int32_t>(r));
          r = n.parent[static_cast<size_t>(r)];
        }
      } else {
        for (auto it = rows.begin(); it != after; ++it) {
          if (range_end(*it) >= en) containing.push_back(static_cast<int32_t>(*it));
        }
      }
    }
    for (int32_t op = head; op >= 0; op = next[static_cast<size_t>(op)]) {
      if (containing.empty()) links.push_back({static_cast<uint32_t>(op), static_cast<uint32_t>(c), -1});
      for (int32_t r : containing) links.push_back({static_cast<uint32_t>(op), static_cast<uint32_t>(c), r});
    }
  }
  return links;
}

}  // namespace kscope::analysis
