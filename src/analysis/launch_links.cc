#include "analysis/launch_links.h"

#include <algorithm>
#include <unordered_map>

namespace kscope::analysis {

namespace {
constexpr int64_t kPidMask = static_cast<int64_t>(0xFFFFFFFFFF000000ULL);

struct Key {
  int64_t pid;
  int64_t corr;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const noexcept {
    return std::hash<uint64_t>()(static_cast<uint64_t>(k.corr) * 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(k.pid));
  }
};
}  // namespace

std::vector<LaunchLink> LinkLaunches(const OpKeys& ops, const ApiCalls& api, const Ranges& ranges) {
  // API calls by (process, correlation id); a key may have several calls.
  std::unordered_map<Key, std::vector<uint32_t>, KeyHash> calls;
  {
    std::unordered_map<Key, int, KeyHash> wanted;
    wanted.reserve(ops.correlation.size());
    for (size_t i = 0; i < ops.correlation.size(); ++i) wanted.emplace(Key{ops.global_pid[i], ops.correlation[i]}, 0);
    calls.reserve(wanted.size());
    for (size_t i = 0; i < api.correlation.size(); ++i) {
      const Key k{api.global_tid[i] & kPidMask, api.correlation[i]};
      if (wanted.contains(k)) calls[k].push_back(static_cast<uint32_t>(i));
    }
  }
  std::vector<LaunchLink> pairs;
  pairs.reserve(ops.correlation.size());
  for (size_t i = 0; i < ops.correlation.size(); ++i) {
    auto it = calls.find(Key{ops.global_pid[i], ops.correlation[i]});
    if (it == calls.end()) continue;
    for (uint32_t a : it->second) pairs.push_back({static_cast<uint32_t>(i), a, -1});
  }
  // Sweep each thread's calls in time order against its ranges in start order.
  std::sort(pairs.begin(), pairs.end(), [&](const LaunchLink& x, const LaunchLink& y) {
    if (api.global_tid[x.api] != api.global_tid[y.api]) return api.global_tid[x.api] < api.global_tid[y.api];
    if (api.start[x.api] != api.start[y.api]) return api.start[x.api] < api.start[y.api];
    return x.op < y.op;
  });
  std::vector<uint32_t> by_start(ranges.start.size());
  for (size_t i = 0; i < by_start.size(); ++i) by_start[i] = static_cast<uint32_t>(i);
  std::sort(by_start.begin(), by_start.end(), [&](uint32_t x, uint32_t y) {
    if (ranges.global_tid[x] != ranges.global_tid[y]) return ranges.global_tid[x] < ranges.global_tid[y];
    return ranges.start[x] < ranges.start[y];
  });

  std::vector<LaunchLink> links;
  links.reserve(pairs.size());
  std::vector<uint32_t> active;
  size_t next = 0;  // next range (in by_start) not yet active
  int64_t thread = 0;
  bool first = true;
  for (const LaunchLink& p : pairs) {
    const int64_t tid = api.global_tid[p.api];
    const int64_t s = api.start[p.api];
    const int64_t e = api.end[p.api];
    if (first || tid != thread) {
      first = false;
      thread = tid;
      active.clear();
      next = static_cast<size_t>(std::lower_bound(by_start.begin(), by_start.end(), tid,
                                                  [&](uint32_t r, int64_t t) { return ranges.global_tid[r] < t; }) -
                                 by_start.begin());
    }
    while (next < by_start.size() && ranges.global_tid[by_start[next]] == tid && ranges.start[by_start[next]] <= s) {
      active.push_back(by_start[next++]);
    }
    std::erase_if(active, [&](uint32_t r) { return ranges.end[r] < s; });
    bool any = false;
    for (uint32_t r : active) {
      if (ranges.end[r] >= e) {
        links.push_back({p.op, p.api, static_cast<int32_t>(r)});
        any = true;
      }
    }
    if (!any) links.push_back(p);
  }
  return links;
}

}  // namespace kscope::analysis
