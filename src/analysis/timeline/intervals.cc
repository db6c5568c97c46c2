#include "analysis/timeline/intervals.h"

#include <algorithm>

namespace kscope::analysis {

IntervalSet MergeIntervals(std::vector<TimeWindow> intervals) {
  auto by_start = [](const TimeWindow& x, const TimeWindow& y) { return x.start < y.start; };
  if (!std::is_sorted(intervals.begin(), intervals.end(), by_start)) {
    std::sort(intervals.begin(), intervals.end(), by_start);
  }
  // Merge in place: the merged set is never longer than the input read so far.
  size_t kept = 0;
  for (size_t i = 0; i < intervals.size(); ++i) {
    const TimeWindow w = intervals[i];
    if (w.end <= w.start) continue;
    if (kept > 0 && w.start <= intervals[kept - 1].end) {
      intervals[kept - 1].end = std::max(intervals[kept - 1].end, w.end);
    } else {
      intervals[kept++] = w;
    }
  }
  intervals.resize(kept);
  return intervals;
}

void AppendInStartOrder(IntervalSet& set, TimeWindow w) {
  if (w.end <= w.start) return;
  if (!set.empty() && w.start <= set.back().end) {
    set.back().end = std::max(set.back().end, w.end);
  } else {
    set.push_back(w);
  }
}

size_t FirstEndingAfter(const IntervalSet& set, int64_t t) {
  // Disjoint and sorted by start, so sorted by end too.
  auto it = std::upper_bound(set.begin(), set.end(), t, [](int64_t v, const TimeWindow& w) { return v < w.end; });
  return static_cast<size_t>(it - set.begin());
}

IntervalSet Intersect(const IntervalSet& set, const IntervalSet& windows) {
  IntervalSet out;
  for (const TimeWindow& w : windows) {
    for (size_t i = FirstEndingAfter(set, w.start); i < set.size() && set[i].start < w.end; ++i) {
      out.push_back({std::max(set[i].start, w.start), std::min(set[i].end, w.end)});
    }
  }
  return out;
}

IntervalSet Complement(const IntervalSet& set, const IntervalSet& windows) {
  IntervalSet out;
  for (const TimeWindow& w : windows) {
    int64_t cursor = w.start;
    for (size_t i = FirstEndingAfter(set, w.start); i < set.size() && set[i].start < w.end; ++i) {
      if (set[i].start > cursor) out.push_back({cursor, set[i].start});
      cursor = std::max(cursor, set[i].end);
    }
    if (cursor < w.end) out.push_back({cursor, w.end});
  }
  return out;
}

int64_t OverlapNs(const IntervalSet& set, TimeWindow w) {
  int64_t ns = 0;
  for (size_t i = FirstEndingAfter(set, w.start); i < set.size() && set[i].start < w.end; ++i) {
    ns += std::min(set[i].end, w.end) - std::max(set[i].start, w.start);
  }
  return ns;
}

int64_t TotalNs(const IntervalSet& set) {
  int64_t ns = 0;
  for (const TimeWindow& w : set) ns += w.end - w.start;
  return ns;
}

}  // namespace kscope::analysis
