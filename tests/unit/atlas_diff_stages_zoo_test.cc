// kscope diff per NVTX stage, MFU and bottleneck class, on zoo workloads recorded on an H100:
// the dense decoder's inference (run 1, its FLOP-counter and default-set ncu pages) against the
// MoE decoder's (run 2, its FLOP-counter page), which share their stages (prefill, decode); and
// against the encoder (run 3, its portable ncu page), whose kernels ncu classified too. The
// stage and class tables and their JSON against goldens checked by eye; each stage's instances,
// GPU time and MFU equal those of `kscope report` for the same run; the class changes equal a
// count over each run's launches diagnosed one by one; a run against itself has no rows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/atlas/diff.h"
#include "analysis/kernels/bottleneck.h"
#include "analysis/kernels/ncu_launches.h"
#include "analysis/names/kernel_names.h"
#include "config/config.h"
#include "report/diff_report.h"
#include "report/run_report.h"
#include "zoo_support.h"

namespace kscope {
namespace {

using analysis::atlas::Change;
using analysis::atlas::RunDiff;

store::Store& StagesStore() {
  static store::Store store = [] {
    auto s = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
    EXPECT_EQ(testing::ImportZoo(s, "decoder_infer", {"flops_all_raw.csv", "default_profile_raw.csv"}), 1);
    EXPECT_EQ(testing::ImportZoo(s, "moe_decoder", {"flops_all_raw.csv"}), 2);
    EXPECT_EQ(testing::ImportZoo(s, "encoder_bert", {"portable_raw.csv"}), 3);
    return s;
  }();
  return store;
}

RunDiff Diff(int64_t a, int64_t b) {
  auto d = analysis::atlas::DiffRuns(StagesStore(), a, b, config::Config{});
  EXPECT_TRUE(d.ok()) << d.error().Line();
  return d.ok() ? std::move(d).value() : RunDiff{};
}

void ExpectGolden(const std::string& text, const std::string& golden) {
  const std::string path = std::string(KSCOPE_TEST_DATA_DIR) + "/atlas/" + golden;
  if (text != testing::ReadFile(path)) {
    const auto actual = std::filesystem::temp_directory_path() / (golden + ".actual");
    std::ofstream(actual) << text;
    ADD_FAILURE() << "differs from tests/data/atlas/" << golden << "; this run's is in " << actual;
  }
}

// The stage table and the two class tables (DiffTables' last three) as the terminal shows
// them, and their JSON.
void ExpectStagesAndClasses(const RunDiff& d, const std::string& golden) {
  std::ostringstream text;
  auto tables = report::DiffTables(d);
  ASSERT_EQ(tables.size(), 6U);
  tables.erase(tables.begin(), tables.begin() + 3);
  report::WriteDiffTables(tables, report::Format::kTable, text);
  text << "\n";
  ExpectGolden(text.str(), golden + ".txt");
  const auto json = report::DiffJson(d);
  const nlohmann::json part{{"stages", json["stages"]},
                            {"family_classes", json["family_classes"]},
                            {"kernel_classes", json["kernel_classes"]}};
  ExpectGolden(part.dump(2) + "\n", golden + ".json");
}

TEST(AtlasDiffStagesZoo, DenseAgainstMoeDecoderAgainstGoldens) {
  ExpectStagesAndClasses(Diff(1, 2), "diff_decoder_moe");
}

TEST(AtlasDiffStagesZoo, DecoderAgainstEncoderAgainstGoldens) {
  ExpectStagesAndClasses(Diff(1, 3), "diff_decoder_encoder");
}

// Each stage's figures in A and B are those of kscope report's stages for the run.
TEST(AtlasDiffStagesZoo, StagesEqualTheRunReports) {
  const RunDiff d = Diff(1, 2);
  ASSERT_FALSE(d.stages.empty());
  int64_t both_mfu = 0;
  for (int64_t run : {1, 2}) {
    auto r = report::BuildRunReport(StagesStore(), run, config::Config{});
    ASSERT_TRUE(r.ok()) << r.error().Line();
    std::map<std::string, report::StagePart> stages;
    for (const auto& s : r->stages) stages[s.name] = s;
    for (const auto& row : d.stages) {
      const auto& side = run == 1 ? row.a : row.b;
      SCOPED_TRACE(row.stage);
      ASSERT_EQ(side.has_value(), stages.contains(row.stage));
      if (!side) continue;
      const auto& s = stages.at(row.stage);
      EXPECT_EQ(side->instances, s.instances);
      EXPECT_EQ(side->kernel_ns, s.kernel_ns);
      EXPECT_EQ(side->median_gpu_ns, s.steady.median_gpu_ns);
      const auto& mfu = s.mfu.mfu_pct;
      ASSERT_EQ(side->mfu_pct.has_value(), mfu.has_value());
      if (side->mfu_pct) {
        EXPECT_DOUBLE_EQ(*side->mfu_pct, *mfu);
      }
    }
  }
  for (const auto& row : d.stages) {
    if (row.MfuDeltaPts()) ++both_mfu;
  }
  EXPECT_GT(both_mfu, 0);  // prefill and decode: measured in both runs
}

// The families whose main class (over launches with a known class) changed, from each run's
// launches diagnosed one by one.
TEST(AtlasDiffStagesZoo, ClassChangesFromTheLaunches) {
  std::map<std::string, std::map<std::string, int64_t>> mix[2];
  for (int64_t run : {1, 3}) {
    auto launches = analysis::LoadNcuLaunches(StagesStore(), run);
    ASSERT_TRUE(launches.ok());
    for (const auto& l : *launches) {
      const auto b = analysis::Diagnose(l, {}).bottleneck;
      if (b == analysis::Bottleneck::kUnknown) continue;
      ++mix[run == 1 ? 0 : 1][analysis::IdentifyKernel(l.key.name).family][std::string(analysis::BottleneckName(b))];
    }
  }
  auto main = [](const std::map<std::string, int64_t>& m) {
    std::string best;
    int64_t most = 0;
    for (const auto& [c, n] : m) {
      if (n > most) best = c, most = n;
    }
    return best;
  };
  std::set<std::string> expected;
  for (const auto& [family, m] : mix[0]) {
    if (mix[1].contains(family) && main(m) != main(mix[1].at(family))) expected.insert(family);
  }
  ASSERT_FALSE(expected.empty());
  std::set<std::string> got;
  for (const auto& r : Diff(1, 3).family_classes) got.insert(r.key);
  EXPECT_EQ(got, expected);
}

TEST(AtlasDiffStagesZoo, ARunAgainstItselfHasNoStageOrClassRows) {
  const RunDiff d = Diff(1, 1);
  EXPECT_TRUE(d.stages.empty());
  EXPECT_TRUE(d.family_classes.empty());
  EXPECT_TRUE(d.kernel_classes.empty());
  auto t = analysis::atlas::ParseThreshold("stage_gpu_time_pct>0");
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(analysis::atlas::Check(d, *t).second);
}

}  // namespace
}  // namespace kscope
