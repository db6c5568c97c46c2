// Growing shapes: the encoder-decoder's decode (zoo/models/encdec_infer.py, recorded on an
// H100) grows its self-attention cache by one position per step, so several kernels run with
// a new grid at every step. The selection samples a few sizes of each instead of profiling
// every configuration, and says how much of its coverage the samples only represent.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "capture/commands.h"
#include "capture/selection.h"
#include "config/config.h"
#include "store/column_codec.h"
#include "store/event_reader.h"
#include "store/event_streams.h"
#include "zoo_support.h"

namespace kscope {
namespace {

class GrowingShapes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    store_ = std::make_unique<store::Store>(std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate).value()));
    run_ = testing::ImportZoo(*store_, "encdec_infer");
  }
  static void TearDownTestSuite() { store_.reset(); }

  static Result<capture::Selection> Select(int64_t samples) {
    config::Config c;
    c.selection.stage = "decode";
    c.selection.growing_samples = samples;
    return capture::SelectKernels(*store_, run_, c.selection, capture::EstimatedPasses(c.ncu), c.stages.warmup);
  }

  // Per kernel stream row: grid x and the kernel's mangled-name id.
  static std::vector<std::vector<int64_t>> Columns() {
    auto cols = store::ReadColumns(store_->db(), run_, store::kKernelStream,
                                   {store::kernel::kGridX, store::kernel::kMangledName});
    return cols.ok() ? std::move(cols).value() : std::vector<std::vector<int64_t>>{};
  }

  static std::unique_ptr<store::Store> store_;
  static int64_t run_;
};
std::unique_ptr<store::Store> GrowingShapes::store_;
int64_t GrowingShapes::run_ = -1;

TEST_F(GrowingShapes, EveryConfigurationProfiledIsTheSlowCase) {
  ASSERT_GT(run_, 0);
  auto all = Select(0);
  ASSERT_TRUE(all.ok()) << all.error().Line();
  EXPECT_EQ(all->growing_kernels, 0);
  int64_t launches = 0;
  for (const auto& p : all->passes) launches += static_cast<int64_t>(p.profiled_rows.size());
  // Every launch configuration of the selected kernels once: hundreds of launches, past the
  // 90 s the issue allows.
  EXPECT_GT(launches, 150);
  EXPECT_GT(all->estimated_s, 90);
}

TEST_F(GrowingShapes, DecodeSampledReachesNinetyPercentWithinNinetySeconds) {
  ASSERT_GT(run_, 0);
  auto sel = Select(3);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  EXPECT_GE(sel->growing_kernels, 1);
  EXPECT_GE(sel->deep_pct, 90);
  EXPECT_LE(sel->estimated_s, 90);
  EXPECT_GT(sel->represented_pct, 0);
  EXPECT_LT(sel->represented_pct, sel->deep_pct);
  // The measured share is what the profiled configurations hold: each non-sampled kernel's
  // covered time, each sampled kernel's measured configurations.
  int64_t measured = 0, represented = 0;
  for (const auto& k : sel->kernels) {
    measured += k.sampled ? k.measured_ns : k.covered_ns;
    if (k.sampled) represented += k.covered_ns - k.measured_ns;
  }
  const double scope = static_cast<double>(sel->scope_ns);
  EXPECT_NEAR(100.0 * static_cast<double>(measured) / scope, sel->deep_pct - sel->represented_pct, 1e-9);
  EXPECT_NEAR(100.0 * static_cast<double>(represented) / scope, sel->represented_pct, 1e-9);
}

// Each sample is an ncu run of its own whose global window over the sampled kernels' launches
// starts at the sample: its rows are those launches, consecutive in the discovery run's order,
// and the lead kernel is met at a different grid in each window.
TEST_F(GrowingShapes, WindowsProfileConsecutiveLaunchesAtDifferentSizes) {
  ASSERT_GT(run_, 0);
  auto sel = Select(3);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  const auto cols = Columns();
  ASSERT_EQ(cols.size(), 2U);
  std::set<int64_t> sampled_ids;
  const capture::SelectedKernel* lead = nullptr;
  for (const auto& k : sel->kernels) {
    if (!k.sampled) continue;
    if (lead == nullptr) lead = &k;
    sampled_ids.insert(cols[1][static_cast<size_t>(k.rows.front())]);
    EXPECT_GE(k.family_configs, 8) << k.name;
  }
  ASSERT_NE(lead, nullptr);
  const int64_t lead_id = cols[1][static_cast<size_t>(lead->rows.front())];
  std::set<int64_t> lead_grids;
  int windows = 0;
  for (const auto& p : sel->passes) {
    if (p.skip < 0) {
      for (int64_t row : p.profiled_rows) EXPECT_EQ(sampled_ids.count(cols[1][static_cast<size_t>(row)]), 0U);
      continue;
    }
    ++windows;
    EXPECT_EQ(p.count, static_cast<int64_t>(p.profiled_rows.size()));
    ASSERT_FALSE(p.profiled_rows.empty());
    EXPECT_EQ(cols[1][static_cast<size_t>(p.profiled_rows.front())], lead_id);
    lead_grids.insert(cols[0][static_cast<size_t>(p.profiled_rows.front())]);
    std::set<int64_t> seen;
    for (int64_t row : p.profiled_rows) seen.insert(cols[1][static_cast<size_t>(row)]);
    EXPECT_EQ(seen, sampled_ids);  // every sampled kernel met in each window
  }
  EXPECT_EQ(windows, 3);
  EXPECT_EQ(lead_grids.size(), 3U);
  // ncu's arguments for a window: its own global skip and count.
  const auto& window = sel->passes.back();
  ASSERT_GE(window.skip, 0);
  const config::Config c;
  const auto argv = capture::NcuProfileArgv("ncu", c.ncu, *sel, window, {}, "out", {"python3", "w.py"});
  const std::vector<std::string> expected{"--filter-mode",  "global",
                                          "--launch-skip",  std::to_string(window.skip),
                                          "--launch-count", std::to_string(window.count)};
  EXPECT_NE(std::search(argv.begin(), argv.end(), expected.begin(), expected.end()), argv.end());
  // What the GPU check (docs/gpu/issue22_window_check.sh) compares ncu's results with.
  for (const auto& p : sel->passes) {
    if (p.skip < 0) continue;
    std::string grids;
    for (int64_t row : p.profiled_rows) grids += " " + std::to_string(cols[0][static_cast<size_t>(row)]);
    std::cout << "window skip " << p.skip << " count " << p.count << " grid_x" << grids << "\n"
              << "filter " << p.filter << "\n";
  }
}

}  // namespace
}  // namespace kscope
