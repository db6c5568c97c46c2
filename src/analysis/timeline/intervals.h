// Time intervals in ns, [start, end): merged into sorted disjoint sets, intersected with
// windows and measured. The timeline diagnosis is built from these few operations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kscope::analysis {

struct TimeWindow {
  int64_t start = 0;  // ns, inclusive
  int64_t end = 0;    // ns, exclusive
};

// Sorted by start, disjoint, none empty, no two touching.
using IntervalSet = std::vector<TimeWindow>;

// Sorts and merges: overlapping or touching intervals become one; empty ones are dropped.
IntervalSet MergeIntervals(std::vector<TimeWindow> intervals);

// Adds `w` to `set`, merging it with the last interval where they overlap or touch. Building a
// set this way takes the intervals in start order: w.start is at least every earlier start.
void AppendInStartOrder(IntervalSet& set, TimeWindow w);

// The parts of `set` inside `windows`, clipped; a part never spans two windows.
IntervalSet Intersect(const IntervalSet& set, const IntervalSet& windows);

// The parts of `windows` that `set` leaves uncovered.
IntervalSet Complement(const IntervalSet& set, const IntervalSet& windows);

// ns of `set` inside `w`.
int64_t OverlapNs(const IntervalSet& set, TimeWindow w);

int64_t TotalNs(const IntervalSet& set);

// Index of the first interval of `set` that ends after `t`.
size_t FirstEndingAfter(const IntervalSet& set, int64_t t);

}  // namespace kscope::analysis
