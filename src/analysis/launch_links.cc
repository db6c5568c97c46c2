#include "analysis/launch_links.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <unordered_map>

#include "store/column_codec.h"

namespace kscope::analysis {

namespace {

using store::kNull;
constexpr int64_t kPidMask = static_cast<int64_t>(0xFFFFFFFFFF000000ULL);

// GPU operations of one process by correlation id: an open-addressing table (linear
// probing) from id to the first operation, the others chained through next[]. One probe
// is usually one cache line; a node-based hash map costs an allocation per operation.
class ProcessOps {
 public:
  ProcessOps(int64_t pid, size_t ops) : pid_(pid) {
    size_t capacity = 16;
    while (capacity < 2 * ops) capacity *= 2;
    keys_.assign(capacity, kNull);
    heads_.assign(capacity, -1);
    mask_ = capacity - 1;
  }
  [[nodiscard]] int64_t pid() const { return pid_; }
  [[nodiscard]] int32_t Head(int64_t corr) const {
    for (size_t i = Hash(corr);; i = (i + 1) & mask_) {
      if (keys_[i] == corr) return heads_[i];
      if (keys_[i] == kNull) return -1;
    }
  }
  int32_t& Slot(int64_t corr) {
    size_t i = Hash(corr);
    while (keys_[i] != corr && keys_[i] != kNull) i = (i + 1) & mask_;
    keys_[i] = corr;
    return heads_[i];
  }

 private:
  [[nodiscard]] size_t Hash(int64_t corr) const {
    return static_cast<size_t>((static_cast<uint64_t>(corr) * 0x9E3779B97F4A7C15ULL) >> 20) & mask_;
  }
  int64_t pid_;
  size_t mask_ = 0;
  std::vector<int64_t> keys_;
  std::vector<int32_t> heads_;
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
      if (p.pid() == pid) return &p;
    }
    return nullptr;
  };
  {
    std::vector<std::pair<int64_t, size_t>> counts;  // ops per process
    for (size_t i = 0; i < n_ops; ++i) {
      if (corr_of(i) == kNull || pid_of(i) == kNull) continue;
      auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == pid_of(i); });
      if (it == counts.end()) {
        counts.emplace_back(pid_of(i), 1);
      } else {
        ++it->second;
      }
    }
    for (const auto& [pid, count] : counts) procs.emplace_back(pid, count);
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

  // Link the calls of [begin, end) into `out`.
  auto link_calls = [&](size_t begin, size_t end, std::vector<LaunchLink>& out) {
    std::vector<int32_t> containing;
    const ProcessOps* last = nullptr;
    for (size_t c = begin; c < end; ++c) {
      if (a.correlation[c] == kNull || a.global_tid[c] == kNull) continue;
      const int64_t pid = a.global_tid[c] & kPidMask;
      if (last == nullptr || last->pid() != pid) last = proc_index(pid);
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
        if (containing.empty()) out.push_back({static_cast<uint32_t>(op), static_cast<uint32_t>(c), -1});
        for (int32_t r : containing) out.push_back({static_cast<uint32_t>(op), static_cast<uint32_t>(c), r});
      }
    }
  };
  // The calls are independent once the tables are built: link them in parts, in parallel,
  // and join the parts in call order.
  const size_t calls = a.start.size();
  const size_t parts = std::clamp<size_t>(std::min<size_t>(std::thread::hardware_concurrency(), 8), 1,
                                          std::max<size_t>(calls / 4096, 1));
  std::vector<std::vector<LaunchLink>> linked(parts);
  std::vector<std::exception_ptr> failed(parts);
  auto run_part = [&](size_t p) {
    try {
      link_calls(calls * p / parts, calls * (p + 1) / parts, linked[p]);
    } catch (...) {
      failed[p] = std::current_exception();  // rethrown on the caller's thread
    }
  };
  std::vector<std::thread> workers;
  for (size_t p = 1; p < parts; ++p) workers.emplace_back(run_part, p);
  run_part(0);
  for (auto& w : workers) w.join();
  for (const auto& error : failed) {
    if (error) std::rethrow_exception(error);
  }
  std::vector<LaunchLink> links = std::move(linked[0]);
  for (size_t p = 1; p < parts; ++p) links.insert(links.end(), linked[p].begin(), linked[p].end());
  return links;
}

}  // namespace kscope::analysis
