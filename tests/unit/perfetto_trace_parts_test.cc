// The analysis tracks of the Perfetto trace (report/perfetto_trace.h) on zoo runs: each NVTX
// stage's instances on their track, steady or warm-up; the iterations of a run without NVTX;
// and the cap on launch arrows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/iterations/iterations.h"
#include "analysis/stages/stage_steady.h"
#include "analysis/stages/stages.h"
#include "analysis/timeline/nsys_events.h"
#include "perfetto_support.h"

namespace kscope {
namespace {

using testing::NsOf;
using testing::TraceEvent;

// Each stage of the user's: a track with each instance's range, steady after the first (stages.warmup 1).
TEST(PerfettoTraceParts, EachStageInstanceOnItsTrackSteadyOrWarmUp) {
  testing::Exported& x = testing::ExportOf("decoder_train", 100, 50);  // the caps change no slice
  auto nsys = analysis::LoadNsysEvents(*x.store, x.run);
  ASSERT_TRUE(nsys.ok());
  auto stages = analysis::ComputeStages(*x.store, x.run, &*nsys);
  ASSERT_TRUE(stages.ok());
  int checked = 0;
  for (const analysis::Stage& s : *stages) {
    if (s.torch_op || s.library) continue;
    const analysis::StageSteady steady = analysis::SteadyState(s, 1);
    std::vector<std::pair<std::string, std::string>> expected, seen;  // ts, dur
    int64_t steady_seen = 0;
    for (const auto& inst : s.instance_list)
      expected.emplace_back(testing::MicrosOf(inst.start), testing::MicrosOf(inst.range_ns));
    for (const TraceEvent& e : x.trace.events) {
      if (e.ph() != "X" || e.cat() != "stage" || x.trace.ThreadOf(e) != "stage " + analysis::DisplayName(s)) continue;
      seen.emplace_back(e.ts, e.dur);
      steady_seen += e.json["args"]["state"] == "steady" ? 1 : 0;
    }
    EXPECT_EQ(seen, expected) << s.name;
    EXPECT_EQ(steady_seen, steady.steady) << s.name;
    ++checked;
  }
  EXPECT_GE(checked, 3);  // step, forward, backward, optimizer
}

// A run without NVTX: its loop's iterations, tiling the loop, the first one warm-up.
TEST(PerfettoTraceParts, TheIterationsOfARunWithoutNvtx) {
  testing::Exported& x = testing::ExportOf("no_nvtx_infer");
  auto nsys = analysis::LoadNsysEvents(*x.store, x.run);
  ASSERT_TRUE(nsys.ok());
  auto input = analysis::LoadIterationInput(*x.store, x.run, *nsys);
  ASSERT_TRUE(input.ok());
  const analysis::IterationLoop loop = analysis::FindIterations(*input);
  ASSERT_GE(loop.iterations.size(), 3U);
  std::vector<const TraceEvent*> seen;
  for (const TraceEvent& e : x.trace.events) {
    if (e.ph() == "X" && e.cat() == "iteration") seen.push_back(&e);
  }
  ASSERT_EQ(seen.size(), loop.differing.size() + loop.iterations.size());
  const size_t first = loop.differing.size();
  EXPECT_EQ(seen[first]->json["args"]["state"], "warm-up");
  EXPECT_EQ(seen[first + 1]->json["args"]["state"], "steady");
  for (size_t j = 0; j < loop.iterations.size(); ++j) {
    EXPECT_EQ(NsOf(seen[first + j]->ts), loop.iterations[j].start);
    EXPECT_EQ(NsOf(seen[first + j]->dur), loop.iterations[j].end - loop.iterations[j].start);
  }
  EXPECT_TRUE(x.trace.ThreadOf(*seen[0]).starts_with("iterations ("));
}

// Past the caps, the earliest operations keep their launch arrows and the path's first hops
// theirs, every slice stays, and the file says how many have none.
TEST(PerfettoTraceParts, ArrowsStopAtTheCaps) {
  testing::Exported& x = testing::ExportOf("decoder_train", 100, 50);
  int64_t launches = 0, hops = 0, pieces = 0;
  for (const TraceEvent& e : x.trace.events) {
    launches += e.cat() == "launch" && e.ph() == "s" ? 1 : 0;
    hops += e.cat() == "critical path" && e.ph() == "s" ? 1 : 0;
    pieces += e.cat() == "critical path" && e.ph() == "X" ? 1 : 0;
  }
  EXPECT_EQ(launches, 100);
  EXPECT_EQ(x.summary.launch_flows, 100);
  // Every operation whose launching call is in the capture: 4,427 by SQL over the export (as
  // Recorded/PerfettoTrace counts them).
  EXPECT_EQ(x.summary.launch_flows + x.summary.launches_left_out, 4427);
  EXPECT_EQ(x.trace.whole["metadata"]["launches_without_flow"], x.summary.launches_left_out);
  ASSERT_TRUE(x.summary.critical_path);
  const report::DrawnPath& p = *x.summary.critical_path;
  EXPECT_EQ(hops, 50);
  EXPECT_EQ(p.arrows, 50);
  EXPECT_GT(p.arrows_left_out, 400);
  EXPECT_EQ(pieces, p.pieces) << "every piece stays";
  EXPECT_EQ(p.path_ns, p.end - p.start);
  EXPECT_EQ(x.trace.whole["metadata"]["critical_path_hops_without_flow"], p.arrows_left_out);
  ASSERT_EQ(x.summary.notes.size(), 2U);
  EXPECT_NE(x.summary.notes[0].find("first 100 operations"), std::string::npos);
  EXPECT_NE(x.summary.notes[1].find("first 50 hops"), std::string::npos);
}

}  // namespace
}  // namespace kscope
