// `--rank N` on kscope kernels, kernel, atlas and diff, on the zoo's 2-rank DDP training
// (tests/data/zoo/ddp_train/): each rank's kernel time per family and kernel, its stages and
// the launches ncu profiled on its GPU, against SQL over the export and ncu's raw page.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "analysis/atlas/atlas.h"
#include "analysis/atlas/diff.h"
#include "analysis/atlas/diff_runs_detail.h"
#include "analysis/names/kernel_names.h"
#include "config/config.h"
#include "report/all_kernels.h"
#include "report/kernel_reports.h"
#include "report/run_report.h"
#include "zoo_support.h"

namespace kscope {
namespace {

struct Imported {
  store::Store store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  int64_t run = testing::ImportZoo(store, "ddp_train", {"default_profile_raw.csv"});
};
Imported& Ddp() {
  static Imported imported;
  return imported;
}

// Per family, the rank's launches and kernel time, by SQL on the export.
std::map<std::string, std::pair<int64_t, int64_t>> FamiliesBySql(int64_t rank) {
  auto db =
      std::move(sql::Db::Open(testing::ZooFile("ddp_train", "discovery.sqlite"), sql::OpenMode::kReadOnly)).value();
  auto q = db.Prepare(
      "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
      "k.demangledName WHERE k.globalPid >> 24 & 16777215 = (SELECT DISTINCT globalPid >> 24 & 16777215 AS pid FROM "
      "CUPTI_ACTIVITY_KIND_KERNEL ORDER BY pid LIMIT 1 OFFSET ?1) GROUP BY s.value");
  EXPECT_TRUE(q.ok());
  q->Bind(1, rank);
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  while (q->Step()) {
    auto& f = out[analysis::IdentifyKernel(q->Text(0)).family];
    f.first += q->Int(1);
    f.second += q->Int(2);
  }
  return out;
}

TEST(RankViews, AtlasOfOneRankIsItsKernels) {
  for (int64_t rank : {0, 1}) {
    analysis::atlas::RunFilter filter;
    filter.run_ids = {Ddp().run};
    filter.rank = rank;
    auto atlas = analysis::atlas::BuildAtlas(Ddp().store, filter, analysis::atlas::Grouping::kFamily, {});
    ASSERT_TRUE(atlas.ok()) << atlas.error().Line();
    std::map<std::string, std::pair<int64_t, int64_t>> got;
    for (const auto& row : atlas->popularity) got[row.key] = {row.launches, row.gpu_time_ns};
    EXPECT_EQ(got, FamiliesBySql(rank));
    // ncu profiled rank 0's GPU alone (its raw page: 71 launches on device 0).
    EXPECT_EQ(atlas->runs.front().profiled_launches, rank == 0 ? 71 : 0);
  }
  analysis::atlas::RunFilter missing;
  missing.run_ids = {Ddp().run};
  missing.rank = 2;
  auto none = analysis::atlas::BuildAtlas(Ddp().store, missing, analysis::atlas::Grouping::kFamily, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().Line(), "kscope: error: run " + std::to_string(Ddp().run) +
                                     ": has no rank 2; its ranks are 0, 1; choose one of them with --rank");
}

TEST(RankViews, DiffReadsEachRanksKernelsAndStages) {
  for (int64_t rank : {0, 1}) {
    auto kernels = analysis::atlas::LoadRunKernels(Ddp().store, Ddp().run, rank);
    ASSERT_TRUE(kernels.ok()) << kernels.error().Line();
    std::map<std::string, std::pair<int64_t, int64_t>> got;
    for (const auto& [family, sum] : kernels->families) got[family] = {sum.launches, sum.ns};
    EXPECT_EQ(got, FamiliesBySql(rank));
    auto stages = analysis::atlas::LoadStageFacts(Ddp().store, Ddp().run, config::Config{}, rank);
    ASSERT_TRUE(stages.ok()) << stages.error().Line();
    auto report = report::BuildRunReport(Ddp().store, Ddp().run, config::Config{}, rank);
    ASSERT_TRUE(report.ok());
    for (const auto& s : report->stages) {
      ASSERT_TRUE(stages->contains(s.name)) << s.name;
      const auto& f = stages->at(s.name);
      EXPECT_EQ(f.instances, s.instances) << s.name;
      EXPECT_EQ(f.kernel_ns, s.kernel_ns) << s.name;
      EXPECT_EQ(f.mfu_pct, s.mfu.mfu_pct) << s.name;
    }
  }
  // One rank of a run against the same rank of the same run: nothing changed.
  auto same = analysis::atlas::DiffRuns(Ddp().store, Ddp().run, Ddp().run, config::Config{}, 1);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->families.empty());
  EXPECT_TRUE(same->stages.empty());
  int64_t rank_ns = 0;
  for (const auto& [family, f] : FamiliesBySql(1)) rank_ns += f.second;
  EXPECT_EQ(same->ns_a, rank_ns);
}

TEST(RankViews, KernelsOfOneRank) {
  const analysis::ClassifyThresholds thresholds;
  auto all = report::AllKernelsTable(Ddp().store, Ddp().run, thresholds, 1);
  ASSERT_TRUE(all.ok()) << all.error().Line();
  int64_t launches = 0;
  for (const auto& row : all->rows) launches += std::get<int64_t>(row[3]);
  int64_t want = 0;
  for (const auto& [family, f] : FamiliesBySql(1)) want += f.first;
  EXPECT_EQ(launches, want);
  auto profiled = report::KernelsTable(Ddp().store, Ddp().run, thresholds, 0);
  ASSERT_TRUE(profiled.ok()) << profiled.error().Line();
  EXPECT_EQ(profiled->rows.size(), report::KernelsTable(Ddp().store, Ddp().run, thresholds)->rows.size());
  auto other = report::KernelsTable(Ddp().store, Ddp().run, thresholds, 1);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().Line(), "kscope: error: run " + std::to_string(Ddp().run) +
                                      ": ncu profiled no launch on rank 1's GPU (1); profile that rank with "
                                      "profile.ncu_rank=1");
}

// kscope kernel --rank N: one kernel among the launches ncu profiled on that rank's GPU.
TEST(RankViews, OneKernelOfOneRank) {
  const analysis::ClassifyThresholds thresholds;
  auto text = [](const std::vector<report::Table>& tables) {
    std::ostringstream out;
    for (const auto& t : tables) report::Write(t, report::Format::kTable, out);
    return out.str();
  };
  // ncu profiled rank 0's GPU alone: rank 0's view of each kernel is the run's.
  auto kernels = report::KernelsTable(Ddp().store, Ddp().run, thresholds, 0);
  ASSERT_TRUE(kernels.ok()) << kernels.error().Line();
  ASSERT_FALSE(kernels->rows.empty());
  for (const std::string& id : std::vector<std::string>{"0", std::to_string(kernels->rows.size() - 1)}) {
    auto ranked = report::KernelDetailTables(Ddp().store, Ddp().run, id, thresholds, 0);
    auto whole = report::KernelDetailTables(Ddp().store, Ddp().run, id, thresholds);
    ASSERT_TRUE(ranked.ok() && whole.ok());
    EXPECT_EQ(text(*ranked), text(*whole));
    EXPECT_NE(text(*ranked).find(std::get<std::string>(kernels->rows[std::stoul(id)][1])), std::string::npos);
  }
  const std::string run = std::to_string(Ddp().run);
  auto other = report::KernelDetailTables(Ddp().store, Ddp().run, "0", thresholds, 1);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().Line(), "kscope: error: run " + run +
                                      ": ncu profiled no launch on rank 1's GPU (1); profile that rank with "
                                      "profile.ncu_rank=1");
  auto missing = report::KernelDetailTables(Ddp().store, Ddp().run, "no such kernel", thresholds, 0);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(
      missing.error().Line(),
      "kscope: error: run " + run +
          ": no profiled kernel's short name is 'no such kernel' and no full name contains it; list them with: kscope "
          "kernels " +
          run + " --rank 0");
}

}  // namespace
}  // namespace kscope
