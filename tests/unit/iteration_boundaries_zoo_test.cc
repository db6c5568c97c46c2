// What marks a loop's iterations (analysis/iterations/iteration_boundary.h), on runs recorded
// on an H100 (tests/data/zoo/README.md): the script without NVTX, whose loop is
// nothing but identical layers, is found per layer and says so in every view; the training
// loop without NVTX says the same; the CUDA graph loop is marked by its launches; runs whose
// host synchronizes once per step get iterations that start after each synchronization.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "analysis/iterations/iteration_boundary.h"
#include "analysis/iterations/iterations.h"
#include "config/config.h"
#include "import/import_files.h"
#include "nsys_stats_support.h"
#include "report/html_report.h"
#include "report/report_text.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "test_support.h"
#include "zoo_support.h"

namespace kscope {
namespace {

store::Store NewStore() { return std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value(); }

int64_t Import(store::Store& store, const std::string& file) {
  auto out = import::ImportFiles(store, {file}, {});
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().Line());
  return out.ok() ? out->front().run_id : -1;
}

analysis::IterationInput InputOf(store::Store& store, int64_t run) {
  auto nsys = analysis::LoadNsysEvents(store, run);
  EXPECT_TRUE(nsys.ok());
  auto in = analysis::LoadIterationInput(store, run, *nsys);
  EXPECT_TRUE(in.ok());
  return std::move(*in);
}

report::RunReport ReportOf(store::Store& store, int64_t run) {
  auto r = report::BuildRunReport(store, run, config::Config{});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().Line());
  return std::move(*r);
}

// Rows of `sql` (one integer column) on an export.
std::vector<int64_t> Column(const std::string& file, const std::string& sql) {
  auto db = sql::Db::Open(file, sql::OpenMode::kReadOnly);
  EXPECT_TRUE(db.ok());
  auto q = db->Prepare(sql);
  EXPECT_TRUE(q.ok());
  std::vector<int64_t> out;
  while (q->Step()) out.push_back(q->Int(0));
  return out;
}

// The starts of the kernels whose short name starts with `prefix`, in start order.
std::vector<int64_t> KernelStarts(const std::string& file, const std::string& prefix) {
  return Column(file,
                "SELECT k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName WHERE "
                "s.value LIKE '" +
                    prefix + "%' ORDER BY k.start");
}

// When each synchronizing CUDA runtime call returned (the ...Synchronize functions and copies
// without 'Async'), ascending.
std::vector<int64_t> SyncEnds(const std::string& file) {
  return Column(file,
                "SELECT r.end FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE s.value "
                "LIKE '%Synchronize%' OR (s.value LIKE 'cudaMemcpy%' AND s.value NOT LIKE '%Async%') ORDER BY r.end");
}

int64_t Inside(const std::vector<int64_t>& times, int64_t from, int64_t to) {
  return std::lower_bound(times.begin(), times.end(), to) - std::lower_bound(times.begin(), times.end(), from);
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The script without NVTX (zoo/models/no_nvtx_infer.py: 5 forward passes of an encoder
// of 2 identical layers), in both recordings: the zoo's (with GPU metrics) and tests/data/nsys's.
// The attention kernel runs once per layer (10 launches, by SQL), 11 kernels apart; no
// synchronizing call returns between the first layer's start and the last one's, so nothing
// tells a pass from a layer: the loop is the layer, and it is marked as the smallest repeat.
TEST(IterationBoundariesZoo, IdenticalLayersAreMarkedAsTheSmallestRepeat) {
  for (const std::string& file :
       {testing::ZooFile("no_nvtx_infer", "discovery.sqlite"), testing::NsysExportFile("no_nvtx")}) {
    auto store = NewStore();
    const int64_t run = Import(store, file);
    const auto attention = KernelStarts(file, "fmha_cutlassF");
    ASSERT_EQ(attention.size(), 10U) << file;
    EXPECT_EQ(Inside(SyncEnds(file), attention.front(), attention.back()), 0) << file;
    const auto loop = analysis::FindIterations(InputOf(store, run));
    EXPECT_EQ(loop.boundary, analysis::IterationBoundary::kNone) << file;
    EXPECT_EQ(loop.repeat_kernels, 11) << file;
    EXPECT_EQ(loop.period, 11) << file;
    EXPECT_EQ(loop.sync_repeats, 1) << file;
    EXPECT_EQ(loop.iterations.size() + loop.differing.size(), 10U) << file;
    // The gap before each layer is a few times those inside it: the host's work between modules.
    EXPECT_GT(loop.boundary_gap_ratio, 3) << file;
    EXPECT_LT(loop.boundary_gap_ratio, analysis::kStandoutGapRatio) << file;
  }
}

// Every view of that run carries the note: the terminal, report.md, report.html and
// report.json (a typed field beside the boundary and the repeat's size).
TEST(IterationBoundariesZoo, EveryViewOfTheLayerLoopSaysItMayBeALayer) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "no_nvtx_infer");
  ASSERT_GT(run, 0);
  const auto r = ReportOf(store, run);
  ASSERT_TRUE(r.iterations);
  ASSERT_TRUE(r.iterations->note);
  const std::string note = *r.iterations->note;
  EXPECT_TRUE(Has(note, "the smallest repeated kernel sequence (11 kernels)")) << note;
  EXPECT_TRUE(Has(note, "may be one layer of a pass")) << note;
  std::ostringstream text, md, html;
  report::WriteReportSummary(r, text);
  EXPECT_TRUE(Has(text.str(), "  note: " + note + "\n")) << text.str();
  report::WriteReportMarkdown(r, md);
  EXPECT_TRUE(Has(md.str(), "Note: " + note + ".")) << md.str();
  ASSERT_TRUE(report::WriteHtmlReport(r, html).ok());
  EXPECT_TRUE(Has(html.str(), "<p>Note: " + note + ".</p>"));
  const auto json = report::ToJson(r)["iterations"];
  EXPECT_EQ(json["note"], note);
  EXPECT_EQ(json["boundary"], "none");
  EXPECT_EQ(json["repeat_kernels"], 11);
  EXPECT_EQ(json["sync_repeats"], 1);
  ASSERT_TRUE(json["boundary_gap_ratio"].is_number());
  EXPECT_LT(json["boundary_gap_ratio"].get<double>(), analysis::kStandoutGapRatio);
}

// The training loop without NVTX: its steps are what repeats (one MSE loss launch each), but
// nothing marks them either (no synchronizing call inside the loop: the only read-back is the
// final loss), so its rows carry the note too, and its iterations are those it had.
TEST(IterationBoundariesZoo, TheTrainingLoopWithoutNvtxCarriesTheNote) {
  auto store = NewStore();
  const std::string file = testing::ZooFile("no_nvtx_train", "discovery.sqlite");
  const int64_t run = Import(store, file);
  const auto loop = analysis::FindIterations(InputOf(store, run));
  ASSERT_FALSE(loop.iterations.empty());
  EXPECT_EQ(Inside(SyncEnds(file), loop.iterations.front().start, loop.iterations.back().end), 0);
  EXPECT_EQ(loop.boundary, analysis::IterationBoundary::kNone);
  EXPECT_EQ(loop.iterations.size(), 9U);
  EXPECT_EQ(loop.differing.size(), 1U);
  const auto r = ReportOf(store, run);
  ASSERT_TRUE(r.iterations && r.iterations->note);
  EXPECT_TRUE(Has(*r.iterations->note, "(137 kernels)")) << *r.iterations->note;
}

// The CUDA graph loop: each iteration starts at a graph launch, which marks it; no note.
TEST(IterationBoundariesZoo, GraphLaunchesMarkTheirIterations) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "graph_replay");
  ASSERT_GT(run, 0);
  const auto r = ReportOf(store, run);
  ASSERT_TRUE(r.iterations);
  EXPECT_EQ(r.iterations->boundary, "CUDA graph launch");
  EXPECT_FALSE(r.iterations->note);
  EXPECT_TRUE(report::ToJson(r)["iterations"]["note"].is_null());
}

// A host that synchronizes once per step (zoo/models/vit_infer.py: 6 forward passes of a ViT,
// torch.cuda.synchronize() after each). Its NVTX stages aside, the kernel sequence alone gives
// the loop, and the synchronizations mark it: 6 iterations, each after the first starting at
// the first kernel after a cudaDeviceSynchronize returned (by SQL).
TEST(IterationBoundariesZoo, SynchronizationsOncePerStepMarkTheSteps) {
  auto store = NewStore();
  const std::string file = testing::ZooFile("vit_infer", "discovery.sqlite");
  const int64_t run = Import(store, file);
  const auto loop = analysis::FindIterations(InputOf(store, run));
  EXPECT_EQ(loop.boundary, analysis::IterationBoundary::kSynchronization);
  EXPECT_EQ(loop.sync_repeats, 1);
  EXPECT_EQ(loop.period, loop.repeat_kernels);
  ASSERT_EQ(loop.iterations.size(), 6U);
  const auto kernels = Column(file, "SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start");
  const auto syncs = Column(file,
                            "SELECT r.end FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                            "WHERE s.value LIKE 'cudaDeviceSynchronize%' ORDER BY r.end");
  std::vector<int64_t> after_sync;
  for (int64_t end : syncs) {
    auto it = std::lower_bound(kernels.begin(), kernels.end(), end);
    if (it != kernels.end()) after_sync.push_back(*it);
  }
  for (size_t j = 1; j < loop.iterations.size(); ++j) {
    EXPECT_NE(std::find(after_sync.begin(), after_sync.end(), loop.iterations[j].start), after_sync.end()) << j;
  }
}

// Where the host synchronizes every k repeats at one place, the iteration is the span between
// two synchronizations. No recorded run does so with k > 1 (the zoo's scripts without NVTX
// synchronize only at their end), so this takes the real kernel sequence of the script
// and adds a synchronization returning 1 ns after the last kernel of each forward pass (every
// second layer: the script's 2-layer encoder), as `torch.cuda.synchronize()` at the end of each
// pass would: the 5 passes of 22 kernels become the iterations, 2 attention launches each.
// After every layer instead, the iterations stay the 10 layers, now marked; at irregular places,
// nothing changes.
TEST(IterationBoundariesZoo, SynchronizationsEveryKRepeatsMakeTheSpanBetweenThemTheIteration) {
  auto store = NewStore();
  const std::string file = testing::ZooFile("no_nvtx_infer", "discovery.sqlite");
  const int64_t run = Import(store, file);
  const analysis::IterationInput real = InputOf(store, run);
  const auto layers = analysis::FindIterations(real);
  ASSERT_EQ(layers.iterations.size(), 10U);
  ASSERT_EQ(layers.boundary, analysis::IterationBoundary::kNone);
  auto with_syncs_after = [&](const std::vector<size_t>& which) {
    analysis::IterationInput in = real;
    in.sync_end.clear();
    for (size_t j : which)
      in.sync_end.push_back(layers.iterations[j].end == layers.iterations.back().end
                                ? layers.iterations[j].end + 1
                                : layers.iterations[j + 1].start - 1);
    std::sort(in.sync_end.begin(), in.sync_end.end());
    return analysis::FindIterations(in);
  };
  const auto attention = KernelStarts(file, "fmha_cutlassF");
  const auto passes = with_syncs_after({1, 3, 5, 7, 9});
  EXPECT_EQ(passes.boundary, analysis::IterationBoundary::kSynchronization);
  EXPECT_EQ(passes.sync_repeats, 2);
  EXPECT_EQ(passes.repeat_kernels, 11);
  EXPECT_EQ(passes.period, 22);
  ASSERT_EQ(passes.iterations.size(), 5U);
  for (size_t j = 0; j < 5; ++j) {
    EXPECT_EQ(passes.iterations[j].start, layers.iterations[2 * j].start) << j;
    EXPECT_EQ(Inside(attention, passes.iterations[j].start, passes.iterations[j].end), 2) << j;
  }
  const auto every_layer = with_syncs_after({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(every_layer.boundary, analysis::IterationBoundary::kSynchronization);
  EXPECT_EQ(every_layer.sync_repeats, 1);
  EXPECT_EQ(every_layer.iterations.size(), 10U);
  const auto irregular = with_syncs_after({0, 1, 3, 8});
  EXPECT_EQ(irregular.boundary, analysis::IterationBoundary::kNone);
  EXPECT_EQ(irregular.iterations.size(), 10U);
}

}  // namespace
}  // namespace kscope
