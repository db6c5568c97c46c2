// What the installed ncu offers, as ncu 2025.3.1 printed it on the H100
// (tests/data/capture/ncu_catalog_h100/: --list-sets, --list-sections, --query-metrics), and
// kscope profile asking for it once per ncu version and GPU, then adding the FLOP counters.
#include "tools/ncu_catalog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "analysis/kernels/launch_flops.h"
#include "capture/profile.h"
#include "config/config.h"
#include "recorded_runner.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
const std::string kCatalog = std::string(KSCOPE_TEST_DATA_DIR) + "/capture/ncu_catalog_h100/";

capture::NcuCatalog H100() {
  return capture::ParseNcuCatalog(testing::ReadFile(kCatalog + "list_sets.txt"),
                                  testing::ReadFile(kCatalog + "list_sections.txt"),
                                  testing::Unzstd(kCatalog + "query_metrics.txt.zst"));
}

TEST(NcuCatalog, ParsesWhatNcuPrintsOnTheH100) {
  const auto c = H100();
  EXPECT_EQ(c.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(c.chip, "GH100");
  EXPECT_EQ(c.sets, (std::set<std::string>{"basic", "detailed", "full", "nvlink", "pmsampling", "roofline"}));
  EXPECT_EQ(c.sections.size(), 24U);
  EXPECT_TRUE(c.sections.contains("SpeedOfLight_HierarchicalTensorRooflineChart"));
  EXPECT_TRUE(c.sections.contains("WorkloadDistribution"));
  EXPECT_FALSE(c.sections.contains("Identifier"));
  EXPECT_TRUE(c.HasMetric("dram__bytes.sum.per_second"));
  EXPECT_TRUE(c.HasMetric("sm__ops_path_tensor_src_fp8"));
  EXPECT_FALSE(c.HasMetric("flop_count_sp"));  // nvprof's name: ncu has none such
  // Every FLOP counter kscope asks for by default exists on the H100 with this ncu.
  const auto check = capture::CheckMetrics(c, analysis::FlopMetrics());
  EXPECT_TRUE(check.missing.empty()) << check.missing.front();
  EXPECT_EQ(check.present.size(), analysis::FlopMetrics().size());
  EXPECT_EQ(capture::MetricBase("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"),
            "smsp__sass_thread_inst_executed_op_ffma_pred_on");
}

TEST(NcuCatalog, MetricsAGpuLacksAreLeftOut) {
  auto c = H100();
  c.metrics.erase("sm__ops_path_tensor_src_fp8");  // as on a GPU before FP8 tensor cores
  c.metrics.erase("sm__ops_path_tensor_src_fp8_sparsity_off");
  const auto check = capture::CheckMetrics(c, analysis::FlopMetrics());
  EXPECT_EQ(check.missing, (std::vector<std::string>{"sm__ops_path_tensor_src_fp8.sum",
                                                     "sm__ops_path_tensor_src_fp8_sparsity_off.sum.per_cycle_elapsed",
                                                     "sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained"}));
}

// kscope profile with the defaults on the recorded Llama run: ncu is asked what it offers
// (three calls, answered by what it printed on the H100), the answer is kept, a second
// profile asks nothing, and the deep pass asks for the FLOP counters.
TEST(NcuCatalog, ProfileAsksOncePerVersionAndAddsTheFlopCounters) {
  const fs::path dir = fs::temp_directory_path() / ("kscope_catalog_" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  testing::RecordedRunner runner;
  runner.ReplayRecordedProfile(std::string(KSCOPE_TEST_DATA_DIR) + "/capture/llama_h100/");
  std::ostringstream screen;
  capture::ProfileSession session(*s, runner, {"nsys", "ncu"}, screen, false);
  capture::ProfileRequest req;
  req.workload = {"python3", "llama_workload.py", "4", "2", "128", "16"};
  req.config = *config::LoadConfig(
      "", {"profile.runs_dir=" + (dir / "runs").string(), "profile.cache_dir=" + (dir / "cache").string(),
           "ncu.import=export"});  // the recorded run kept ncu's pages, not its report
  auto first = session.Run(req);
  ASSERT_TRUE(first.ok()) << first.error().Line();
  auto kinds = [&] {
    std::vector<std::string> k;
    for (const auto& [kind, argv] : runner.calls) k.push_back(kind);
    runner.calls.clear();
    return k;
  };
  const auto first_kinds = kinds();
  EXPECT_EQ(std::count(first_kinds.begin(), first_kinds.end(), "ncu --query-metrics"), 1);
  EXPECT_EQ(std::count(first_kinds.begin(), first_kinds.end(), "ncu --list-sets"), 1);
  EXPECT_TRUE(fs::exists(dir / "cache" / "ncu-2025.3.1.0-NVIDIA_H100_80GB_HBM3.json"));
  auto second = session.Run(req);
  ASSERT_TRUE(second.ok());
  const auto second_kinds = kinds();
  EXPECT_EQ(std::count(second_kinds.begin(), second_kinds.end(), "ncu --query-metrics"), 0);
  // The deep pass's argv: the FLOP counters after the sections.
  std::vector<std::string> ncu;
  for (const auto& [kind, argv] : runner.calls) ncu = argv;
  const auto m = nlohmann::json::parse(testing::ReadFile(second->run_dir + "/manifest.json"));
  std::vector<std::string> expected(analysis::FlopMetrics().begin(), analysis::FlopMetrics().end());
  EXPECT_EQ(m["ncu_settings"]["metrics"].get<std::vector<std::string>>(), expected);
  EXPECT_EQ(m["ncu_settings"]["flops"], "on");
  std::string list;
  for (const auto& metric : expected) list += (list.empty() ? "" : ",") + metric;
  bool found = false;
  for (const auto& step : m["steps"]) {
    if (step["name"] != "ncu pass 1") continue;
    const auto argv = step["argv"].get<std::vector<std::string>>();
    auto it = std::find(argv.begin(), argv.end(), "--metrics");
    ASSERT_NE(it, argv.end());
    EXPECT_EQ(*(it + 1), list);
    found = true;
  }
  EXPECT_TRUE(found);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kscope
