#include "import/derive_run.h"

#include "analysis/kernels/ncu_timeline_link.h"
#include "analysis/kernels/planned_links.h"
#include "analysis/timeline/nsys_summaries.h"
#include "analysis/timeline/ranks.h"
#include "analysis/timeline/run_timeline.h"

namespace kscope::import {

namespace {

Status DeriveTimelineSummaries(store::Store& store, int64_t run_id, analysis::NsysFacts& facts) {
  KSCOPE_RETURN_IF_ERROR(analysis::MaterializeRanks(store, run_id, facts.launched_rank));
  return analysis::MaterializeNsysSummaries(store, run_id, facts);
}

// How many of a file's launches the matching linked (after a plan left some unlinked).
Result<int64_t> MatchedLaunches(store::Store& store, int64_t run_id, int64_t source_id) {
  auto q = store.db().Prepare(
      "SELECT count(*) FROM ncu_launch WHERE run_id = ?1 AND source_id = ?2 AND kernel_link = 'matched'");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id).Bind(2, source_id);
  const int64_t matched = q->Step() ? q->Int(0) : 0;
  KSCOPE_RETURN_IF_ERROR(q->status());
  return matched;
}

// Step 2: every unlinked launch of the run matched to its own timeline, then each planned
// file's launches linked to the kernels its plan named, which wins where the two differ.
// Returns how many launches the matching linked, and per ncu file its counts.
Result<int64_t> LinkLaunches(store::Store& store, const ImportedRun& run, analysis::RunTimelines& timelines,
                             std::vector<LaunchLinks>& links) {
  auto matched = analysis::LinkNcuToTimeline(store, timelines.Of(run.run_id));
  if (!matched.ok()) return matched.error();
  for (size_t i = 0; i < run.ncu.size(); ++i) {
    const PlannedLaunches* plan = run.ncu[i].plan;
    if (plan == nullptr) continue;
    const int64_t discovery = plan->discovery_run != 0 ? plan->discovery_run : run.run_id;
    const int64_t source = run.ncu[i].file.source_id;
    if (plan->by_matching) {
      auto linked = analysis::LinkNcuToTimeline(store, timelines.Of(discovery), run.run_id);
      if (!linked.ok()) return linked.error();
      links[i].matched = *linked;
      continue;
    }
    auto planned =
        analysis::LinkPlannedLaunches(store, run.run_id, source, plan->profiled_rows, timelines.Of(discovery));
    if (!planned.ok()) return planned.error();
    links[i].planned = planned->linked;
    links[i].mismatched = planned->mismatched;
    if (planned->mismatched == 0) continue;
    auto kept = MatchedLaunches(store, run.run_id, source);
    if (!kept.ok()) return kept.error();
    links[i].matched = *kept;
  }
  return *matched;
}

// Step 3, for the files no plan vouches for.
Status CheckUnplannedBelong(store::Store& store, const ImportedRun& run) {
  std::vector<NcuFileOfRun> unplanned;
  for (const auto& f : run.ncu) {
    if (f.plan == nullptr) unplanned.push_back(f.file);
  }
  return CheckNcuBelongsToRun(store, run.run_id, unplanned);
}

}  // namespace

Result<std::vector<LaunchLinks>> DeriveImportedRun(store::Store& store, ImportedRun& run) {
  if (run.nsys != nullptr) KSCOPE_RETURN_IF_ERROR(DeriveTimelineSummaries(store, run.run_id, *run.nsys));
  analysis::RunTimelines timelines(store);
  std::vector<LaunchLinks> links(run.ncu.size());
  auto matched = LinkLaunches(store, run, timelines, links);
  if (!matched.ok()) return matched.error();
  // Launches already in the run that an nsys export of this call linked need their figures'
  // shapes again, as much as the launches of new ncu files.
  if (run.ncu.empty() && *matched == 0) return links;
  if (run.refuse_unrelated_ncu) KSCOPE_RETURN_IF_ERROR(CheckUnplannedBelong(store, run));
  KSCOPE_RETURN_IF_ERROR(analysis::MaterializeLaunchFigures(store, run.run_id, timelines, run.figures));
  return links;
}

}  // namespace kscope::import
