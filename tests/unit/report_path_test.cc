// The report's critical path beside its top kernels: what each kernel is worth twice as fast
// (the same replay kscope whatif answers), the kernels off the path named with what holds the
// step instead, and the drawing of the median step's path on its threads and streams.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/graph/whatif.h"
#include "config/config.h"
#include "import/import_files.h"
#include "report/report_text_path.h"
#include "report/run_report.h"
#include "test_support.h"
#include "zoo_support.h"

namespace kscope {
namespace {

namespace g = analysis::graph;

struct Reported {
  store::Store store;
  int64_t run = 0;
  report::RunReport report;
};

Reported ReportOf(const std::string& data) {
  Reported r{.store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value()};
  if (data == "tiny_cuda") {
    auto out = import::ImportFiles(r.store, {testing::NsysData("tiny_cuda.sqlite")}, {});
    EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().Line());
    r.run = out.ok() ? out->front().run_id : -1;
  } else {
    r.run = testing::ImportZoo(r.store, data);
  }
  auto report = report::BuildRunReport(r.store, r.run, config::Config{});
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().Line());
  if (report.ok()) r.report = std::move(*report);
  return r;
}

class ReportPath : public ::testing::TestWithParam<std::string> {};

// A kernel off the path is worth nothing twice as fast; one on it is worth what kscope whatif
// predicts for kernel:NAME=0.5 on that kernel alone (the report's main steps, median step). On
// the devset's tiny CUDA run one kernel (saxpy) is nearly the whole iteration: twice as fast, it
// saves nearly half of it.
TEST_P(ReportPath, EachTopKernelIsWorthWhatTheWhatIfOfItTwiceAsFastSaves) {
  Reported r = ReportOf(GetParam());
  ASSERT_TRUE(r.report.critical_path) << GetParam();
  const report::CriticalPathPart& p = *r.report.critical_path;
  int on_path = 0;
  for (const report::TopKernel& k : r.report.top_kernels) {
    ASSERT_EQ(k.path_pct.has_value(), k.worth_2x.has_value()) << k.name;
    if (!k.worth_2x) continue;
    EXPECT_GE(k.worth_2x->saving_ns, 0) << k.name;
    if (*k.path_pct <= 0) {
      EXPECT_EQ(k.worth_2x->saving_ns, 0) << k.name;
      continue;
    }
    if (on_path++ >= 3) continue;  // the whatif answers below replay the whole run: three suffice
    g::Edit edit{.text = "kernel=0.5",
                 .target = g::EditTarget::kKernel,
                 .pattern = k.name,
                 .whole_name = true,
                 .scope = {},
                 .factor = 0.5};
    auto answer = g::AnswerWhatIf(r.store, r.run, {edit}, {});
    ASSERT_TRUE(answer.ok()) << answer.error().Line();
    for (const g::StepAnswer& s : answer->steps) {
      if (s.name != answer->primary) continue;
      EXPECT_EQ(s.name, p.steps);
      EXPECT_DOUBLE_EQ(k.worth_2x->saving_ns, std::max(0.0, s.replayed_ns - s.predicted_ns)) << k.name;
      EXPECT_NEAR(k.worth_2x->saving_pct, 100 * k.worth_2x->saving_ns / s.replayed_ns, 1e-9) << k.name;
    }
  }
  if (GetParam() == "tiny_cuda") {
    ASSERT_FALSE(r.report.top_kernels.empty());
    const report::TopKernel& saxpy = r.report.top_kernels.front();
    EXPECT_EQ(saxpy.short_name, "saxpy");
    ASSERT_TRUE(saxpy.worth_2x);
    EXPECT_GT(saxpy.worth_2x->saving_pct, 45);
    EXPECT_LE(saxpy.worth_2x->saving_pct, 50);
  }
  // The off-path line names each top kernel off the path, and what the path runs through most
  // but kernels is its largest such part.
  const std::string off = report::OffPathText(r.report);
  for (const report::TopKernel& k : r.report.top_kernels) {
    if (k.path_pct && *k.path_pct <= 0 && k.rank <= 5) {
      EXPECT_NE(off.find("#" + std::to_string(k.rank) + " " + k.short_name), std::string::npos) << off;
    }
  }
  for (const auto& [part, ns] : p.parts) {
    if (part != "kernels") EXPECT_LE(ns, p.held_by_ns) << part;
    if (part == p.held_by) EXPECT_EQ(ns, p.held_by_ns);
  }
}

// The drawing: the median step's path, piece after piece inside the step, each on a lane that
// the step's threads and streams name; back to back they fill the step where none is left out.
TEST_P(ReportPath, TheDrawingIsTheMedianStepsPathOnItsLanes) {
  Reported r = ReportOf(GetParam());
  ASSERT_TRUE(r.report.critical_path);
  ASSERT_TRUE(r.report.critical_path->drawing);
  const report::PathDrawing& d = *r.report.critical_path->drawing;
  EXPECT_GE(d.step, 1);
  EXPECT_LE(d.step, r.report.critical_path->steps_count);
  ASSERT_FALSE(d.pieces.empty());
  ASSERT_LE(d.pieces.size(), report::PathDrawing::kMaxPieces);
  int64_t at = d.start_ns, covered = 0;
  std::set<size_t> lanes;
  for (const auto& piece : d.pieces) {
    EXPECT_GE(piece.start_ns, at);
    EXPECT_GT(piece.end_ns, piece.start_ns);
    EXPECT_LE(piece.end_ns, d.end_ns);
    ASSERT_LT(piece.lane, d.lanes.size());
    lanes.insert(piece.lane);
    covered += piece.end_ns - piece.start_ns;
    at = piece.end_ns;
    EXPECT_FALSE(piece.what.empty());
  }
  EXPECT_EQ(lanes.size(), d.lanes.size()) << "every lane holds a piece";
  if (d.pieces_left_out == 0) EXPECT_EQ(covered, d.end_ns - d.start_ns);
  const bool job = !r.report.ranks.empty();
  for (const auto& lane : d.lanes) {
    EXPECT_EQ(lane.name.starts_with("rank "), job) << lane.name;
    EXPECT_TRUE(lane.name.find("thread ") != std::string::npos || lane.name.find("stream ") != std::string::npos)
        << lane.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Runs, ReportPath, ::testing::Values("tiny_cuda", "no_nvtx_infer", "ddp_train"));

}  // namespace
}  // namespace kscope
