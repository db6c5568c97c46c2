// The retry of an ncu run of a job of several ranks that the watchdog stopped inside a launch
// (capture/ncu_stall_retry.h), on recorded real outputs of two H100s: the fsdp_train job's
// discovery export (torchrun, 2 ranks) and the output of its ncu run, stopped inside launch 18
// (tests/data/capture/recorded/ncu_fsdp_stall.out, docs/gpu/issue21_multirank_runs).
#include "capture/ncu_stall_retry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "capture/commands.h"
#include "capture/selection.h"
#include "config/config.h"
#include "test_support.h"
#include "tools/tool_output.h"
#include "zoo_support.h"

namespace kscope {
namespace {

Result<capture::Selection> SelectDefaults(store::Store& store, int64_t run) {
  const config::Config c;
  return capture::SelectKernels(store, run, c.selection, capture::EstimatedPasses(c.ncu), c.stages.warmup,
                                c.profile.ncu_rank);
}

// What kscope read from the recorded ncu run as it ran: the launches profiled, and the one it
// was inside when the watchdog stopped it.
capture::NcuOutput RecordedStall() {
  capture::NcuOutput out;
  std::istringstream in(testing::ReadFile(std::string(KSCOPE_TEST_DATA_DIR) + "/capture/recorded/ncu_fsdp_stall.out"));
  for (std::string line; std::getline(in, line);) out.Feed(line);
  EXPECT_TRUE(out.Busy(""));
  return out;
}

class NcuStallRetry : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    store_ = std::make_unique<store::Store>(std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate).value()));
    fsdp_ = testing::ImportZoo(*store_, "fsdp_train");
  }
  static void TearDownTestSuite() { store_.reset(); }

  static std::unique_ptr<store::Store> store_;
  static int64_t fsdp_;
};
std::unique_ptr<store::Store> NcuStallRetry::store_;
int64_t NcuStallRetry::fsdp_ = -1;

TEST_F(NcuStallRetry, TheRetryStartsAtTheLaunchTheRecordedRunStoppedAt) {
  auto sel = SelectDefaults(*store_, fsdp_);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  ASSERT_EQ(sel->passes.size(), 1U);
  const capture::NcuPass& pass = sel->passes.front();
  ASSERT_EQ(pass.profiled_rows.size(), 53U);  // as the recorded run planned them
  const capture::NcuOutput out = RecordedStall();
  ASSERT_EQ(out.profiled, 17);
  std::map<size_t, int> stalls;
  const capture::StallRetry retry = capture::RetryAfterStall(*sel, pass, out.profiled, stalls);
  // The 18th planned launch is the one ncu was inside: the kernel the plan names there is the
  // kernel ncu printed.
  ASSERT_TRUE(retry.stalled.has_value());
  EXPECT_EQ(sel->kernels[*retry.stalled].mangled, out.stuck_kernel);
  EXPECT_EQ(out.stuck_kernel, "nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_TNT");
  EXPECT_EQ(stalls[*retry.stalled], 1);
  EXPECT_EQ(retry.unreached, 53 - 17);
  EXPECT_TRUE(retry.left_out.empty());
  ASSERT_TRUE(retry.pass.has_value());
  // Exactly the kernels with a planned launch at or after the stalled one, each with all of
  // its planned launches, in the order ncu meets them.
  ASSERT_EQ(pass.row_kernels.size(), pass.profiled_rows.size());
  std::map<int64_t, size_t> owner;
  for (size_t i = 0; i < pass.profiled_rows.size(); ++i) owner[pass.profiled_rows[i]] = pass.row_kernels[i];
  std::set<size_t> expected;
  for (size_t i = 17; i < pass.profiled_rows.size(); ++i) expected.insert(owner.at(pass.profiled_rows[i]));
  const std::set<size_t> got(retry.pass->kernels.begin(), retry.pass->kernels.end());
  EXPECT_EQ(got, expected);
  EXPECT_LT(got.size(), pass.kernels.size());  // kernels done before the stall are not profiled again
  std::vector<int64_t> rows;
  std::vector<size_t> kernels;
  for (int64_t row : pass.profiled_rows) {
    if (!got.contains(owner.at(row))) continue;
    rows.push_back(row);
    kernels.push_back(owner.at(row));
  }
  EXPECT_EQ(retry.pass->profiled_rows, rows);
  EXPECT_EQ(retry.pass->row_kernels, kernels);
  std::vector<std::string> names;
  for (size_t k : retry.pass->kernels) names.push_back(sel->kernels[k].mangled);
  EXPECT_EQ(retry.pass->filter, capture::UnionFilter(names));
  EXPECT_EQ(retry.pass->skip, -1);  // the selection's per-configuration window, as the first run
  const std::string line = capture::DescribeRetry(*sel, retry, 1, 1, 2);
  EXPECT_NE(line.find("ncu run 1 made no progress inside a launch of 'nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_TNT'; "
                      "retry 1 of 2: a new run of the workload profiles the " +
                      std::to_string(rows.size()) + " planned launches of the " + std::to_string(got.size()) +
                      " kernels it did not finish"),
            std::string::npos)
      << line;
}

TEST_F(NcuStallRetry, AKernelThatStallsTwiceIsLeftOutAndTheRetriesEnd) {
  auto sel = SelectDefaults(*store_, fsdp_);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  const capture::NcuOutput out = RecordedStall();
  std::map<size_t, int> stalls;
  const capture::StallRetry first = capture::RetryAfterStall(*sel, sel->passes.front(), out.profiled, stalls);
  ASSERT_TRUE(first.pass && first.stalled);
  // The retry stops again at the same kernel's first planned launch.
  const capture::NcuPass& again = *first.pass;
  const size_t stalled = *first.stalled;
  const auto at = std::find(again.row_kernels.begin(), again.row_kernels.end(), stalled);
  ASSERT_NE(at, again.row_kernels.end());
  const auto done = static_cast<int64_t>(at - again.row_kernels.begin());
  const capture::StallRetry second = capture::RetryAfterStall(*sel, again, done, stalls);
  EXPECT_EQ(second.stalled, first.stalled);
  ASSERT_EQ(second.left_out, std::vector<size_t>{stalled});
  const auto its_left = std::count(at, again.row_kernels.end(), stalled);
  EXPECT_EQ(second.launches_left_out, its_left);
  ASSERT_TRUE(second.pass.has_value());
  EXPECT_EQ(std::count(second.pass->row_kernels.begin(), second.pass->row_kernels.end(), stalled), 0);
  EXPECT_FALSE(second.pass->row_kernels.empty());
  const std::string line = capture::DescribeRetry(*sel, second, 2, 3, 2);
  EXPECT_NE(line.find("; left out after stalling twice: 'nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_TNT' (" +
                      std::to_string(its_left) + " planned launch"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("stay unprofiled (profile.ncu_stall_retries=2 used up)"), std::string::npos) << line;
  // A window over a growing shape's sizes counts launches globally: it is not retried.
  capture::NcuPass window = sel->passes.front();
  window.skip = 3;
  window.count = 1;
  EXPECT_FALSE(capture::RetryAfterStall(*sel, window, out.profiled, stalls).pass.has_value());
}

}  // namespace
}  // namespace kscope
