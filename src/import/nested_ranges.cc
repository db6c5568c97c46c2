#include "import/nested_ranges.h"

#include "analysis/stages/nvtx_nesting.h"

namespace kscope::import {

namespace {

analysis::NvtxNesting NestingOf(const std::vector<RangeRow>& rows, int64_t open_end) {
  namespace n = store::nvtx;
  std::vector<analysis::NvtxInterval> intervals;
  intervals.reserve(rows.size());
  for (const auto& r : rows) {
    intervals.push_back({r[n::kStart], r[n::kEnd] == store::kNull ? open_end : r[n::kEnd], r[n::kGlobalTid],
                         r[n::kEndGlobalTid] == store::kNull});
  }
  return analysis::ComputeNvtxNesting(intervals);
}

void AddFacts(const RangeRow& r, analysis::NsysEvents::Nvtx& facts) {
  namespace n = store::nvtx;
  facts.start.push_back(r[n::kStart]);
  facts.end.push_back(r[n::kEnd]);
  facts.event_type.push_back(r[n::kEventType]);
  facts.domain.push_back(r[n::kDomain]);
  facts.text.push_back(r[n::kText]);
  facts.global_tid.push_back(r[n::kGlobalTid]);
  facts.end_global_tid.push_back(r[n::kEndGlobalTid]);
  facts.parent.push_back(r[n::kParent]);
  facts.depth.push_back(r[n::kDepth]);
}

}  // namespace

Status WriteNestedRanges(std::vector<RangeRow>& rows, int64_t open_end, store::EventWriter& out,
                         analysis::NsysEvents::Nvtx& facts) {
  namespace n = store::nvtx;
  const analysis::NvtxNesting nesting = NestingOf(rows, open_end);
  const auto base = static_cast<int64_t>(facts.start.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    r[n::kParent] = nesting.parent[i] < 0 ? store::kNull : base + nesting.parent[i];
    r[n::kDepth] = nesting.depth[i] < 0 ? store::kNull : nesting.depth[i];
    KSCOPE_RETURN_IF_ERROR(out.Append(r));
    AddFacts(r, facts);
  }
  return Status::Ok();
}

}  // namespace kscope::import
