// The readers of an nsys export's tables: each writes its rows to the store as an event
// stream and gathers what the run's summaries need.
#pragma once

#include <deque>
#include <optional>
#include <unordered_map>

#include "analysis/timeline/launch_index.h"
#include "analysis/timeline/nsys_facts.h"
#include "import/nsys/read_context.h"

namespace kscope::import::nsys {

// What one slice of the API calls leaves for the summaries: every call's duration, and
// the launches of the calls that launched GPU work (read before the calls).
struct ApiFacts {
  std::unordered_map<int64_t, analysis::Durations> durations;  // by name id
  std::deque<analysis::NsysFacts::Launch> launches;            // `thread` indexes `threads`
  std::vector<int64_t> threads;
  std::optional<analysis::LaunchClaims> claims;  // which groups of operations the slice's calls claimed
};

// CUPTI_ACTIVITY_KIND_KERNEL, rows of `slice`, on a connection of its own.
Status ReadKernels(FileContext& ctx, Slice slice, FactRegion& facts);
// CUPTI_ACTIVITY_KIND_RUNTIME, rows of `slice`, on a connection of its own: each call is
// linked to the operations it launched (`ops`) and the ranges around it (`ranges`).
Status ReadApiCalls(FileContext& ctx, Slice slice, const analysis::OpIndex& ops, const analysis::CallRanges& ranges,
                    ApiFacts& facts);
// CUPTI_ACTIVITY_KIND_MEMCPY and _MEMSET, on `db`.
Status ReadMemops(FileContext& ctx, sql::Db& db, analysis::NsysEvents::Memops& facts);
// The NVTX table (whichever variant the export has), with each range's nesting, on `db`.
Status ReadNvtx(FileContext& ctx, sql::Db& db, analysis::NsysEvents::Nvtx& facts);
// ThreadNames into the store's thread_name table, on `db`; an export without it has none.
Status ReadThreadNames(FileContext& ctx, sql::Db& db);

}  // namespace kscope::import::nsys
