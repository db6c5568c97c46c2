// One file's NVTX-shaped ranges (nsys's push/pop and start/end ranges, a Kineto trace's CPU ops
// and record_function ranges) nested, written and added to the run's facts: the one step both
// importers end their ranges with.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/timeline/nsys_events.h"
#include "store/event_writer.h"
#include "util/status.h"

namespace kscope::import {

using RangeRow = std::array<int64_t, store::nvtx::kCount>;

// Gives each of `rows` its parent (the tightest enclosing range on its thread, among ranges
// closed on the thread that opened them; a range never closed ends at `open_end`) and depth,
// appends them to `out` and to `facts` after the run's earlier files' ranges (parents are
// run-wide rows).
Status WriteNestedRanges(std::vector<RangeRow>& rows, int64_t open_end, store::EventWriter& out,
                         analysis::NsysEvents::Nvtx& facts);

}  // namespace kscope::import
