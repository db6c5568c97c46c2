// The zoo's FSDP training and tensor-parallel inference jobs as kscope profiled them on two
// H100s (tests/data/zoo/{fsdp_train,tp_infer}/: `kscope profile -- torchrun --nproc_per_node=2
// zoo/models/MODEL.py` with the defaults, docs/gpu/issue21_multirank.sh): each export holds
// both ranks. The store's ranks, the selection's scope and the communication it leaves out
// are checked against SQL over the exports.
#include <gtest/gtest.h>

#include <set>

#include "analysis/names/communication.h"
#include "analysis/timeline/ranks.h"
#include "capture/selection.h"
#include "config/config.h"
#include "rank_support.h"
#include "report/run_report.h"
#include "test_support.h"
#include "zoo_support.h"

namespace kscope {
namespace {

// One rank of a model's export by SQL: the process (in process order), its GPU, its NCCL and
// other kernels.
struct RankSql {
  int64_t pid = 0, device = -1, kernels = 0, comm_launches = 0, comm_ns = 0, compute_launches = 0, compute_ns = 0;
};
RankSql RankBySql(const std::string& model, int64_t rank) {
  auto db = std::move(sql::Db::Open(testing::ZooFile(model, "discovery.sqlite"), sql::OpenMode::kReadOnly)).value();
  auto q = db.Prepare(
      "WITH p AS (SELECT DISTINCT globalPid >> 24 & 16777215 AS pid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY pid "
      "LIMIT 1 OFFSET ?1) "
      "SELECT p.pid, max(k.deviceId), count(*), sum(s.value LIKE 'nccl%'), sum(CASE WHEN s.value LIKE 'nccl%' THEN "
      "k.end - k.start ELSE 0 END), sum(s.value NOT LIKE 'nccl%'), sum(CASE WHEN s.value NOT LIKE 'nccl%' THEN k.end "
      "- k.start ELSE 0 END) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
      "JOIN p ON k.globalPid >> 24 & 16777215 = p.pid");
  EXPECT_TRUE(q.ok());
  q->Bind(1, rank);
  EXPECT_TRUE(q->Step());
  return {q->Int(0), q->Int(1), q->Int(2), q->Int(3), q->Int(4), q->Int(5), q->Int(6)};
}

class RanksZooModels : public ::testing::TestWithParam<std::string> {};

TEST_P(RanksZooModels, EachRankAndItsCommunicationEqualSqlOverTheExport) {
  auto store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  const int64_t run = testing::ImportZoo(store, GetParam());
  ASSERT_GT(run, 0);
  auto ranks = analysis::ReadRanks(store, run);
  ASSERT_TRUE(ranks.ok());
  ASSERT_EQ(ranks->size(), 2U);
  for (int64_t r : {0, 1}) {
    const RankSql want = RankBySql(GetParam(), r);
    const auto& got = (*ranks)[static_cast<size_t>(r)];
    EXPECT_EQ(got.pid, want.pid);
    EXPECT_EQ(got.device, want.device);
    EXPECT_EQ(got.device, r);  // torchrun's local rank r on GPU r
    EXPECT_EQ(got.kernels, want.kernels);
    // Without warm-up, the selection's scope is that rank's compute kernels; its NCCL ones are
    // left out and counted.
    auto sel = capture::SelectKernels(store, run, config::SelectionConfig{}, 17, 0, r);
    ASSERT_TRUE(sel.ok()) << sel.error().Line();
    EXPECT_EQ(sel->comm_launches, want.comm_launches);
    EXPECT_EQ(sel->comm_ns, want.comm_ns);
    EXPECT_EQ(sel->scope_kernels, want.compute_launches);
    EXPECT_EQ(sel->scope_ns, want.compute_ns);
    for (const auto& k : sel->kernels) EXPECT_FALSE(analysis::CommunicationOf(k.name)) << k.name;
  }
}

TEST_P(RanksZooModels, TheDefaultsCoverNinetyPercentOfRankZerosComputeTime) {
  auto store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  const int64_t run = testing::ImportZoo(store, GetParam());
  const config::Config defaults;
  auto sel = capture::SelectKernels(store, run, defaults.selection, 17, defaults.stages.warmup, 0);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  EXPECT_GE(sel->deep_pct, 90);
  EXPECT_EQ(sel->limited_by, "coverage");
  EXPECT_EQ(sel->device, 0);
}

// The report's distributed view: each rank's kernel, communication, compute and exposed
// communication time, its collectives per kind and its wait at them, from the export by SQL.
TEST_P(RanksZooModels, TheReportsRanksAreTheExportsByProcess) {
  auto store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  const int64_t run = testing::ImportZoo(store, GetParam(), {"default_profile_raw.csv"});
  ASSERT_GT(run, 0);
  auto r = report::BuildRunReport(store, run, config::Config{});
  ASSERT_TRUE(r.ok()) << r.error().Line();
  const auto kernels = testing::KernelsByProcess(testing::ZooFile(GetParam(), "discovery.sqlite"));
  const auto waits = testing::CollectiveWaits(kernels);
  ASSERT_EQ(kernels.size(), 2U);
  ASSERT_EQ(r->ranks.size(), 2U);
  for (size_t i = 0; i < 2; ++i) {
    const auto [total, comm, kinds] = testing::TimesOf(kernels[i]);
    const auto& rank = r->ranks[i];
    EXPECT_EQ(rank.kernels, static_cast<int64_t>(kernels[i].size()));
    EXPECT_EQ(rank.kernel_ns, total);
    EXPECT_EQ(rank.communication_ns, comm);
    EXPECT_EQ(rank.compute_ns, total - comm);
    EXPECT_EQ(rank.exposed_communication_ns, testing::ExposedCommunication(kernels[i]));
    EXPECT_EQ(rank.collective_wait_ns, waits[i]);
    std::map<std::string, std::pair<int64_t, int64_t>> got;
    for (const auto& c : rank.collectives) got[c.kind] = {c.count, c.ns};
    EXPECT_EQ(got, kinds);
  }
  ASSERT_TRUE(r->straggler);
  EXPECT_EQ(r->straggler->rank, waits[0] < waits[1] ? 0 : 1);
}

// Tensor-parallel decode is mostly all-reduce time, which does no model FLOPs: ncu's FLOP counts
// must cover the compute kernels, not the collectives, for the MFU to count as measured. With
// the NCCL time in the denominator (85% of it) every MFU of this job read "not measured".
TEST(RanksZooModels, TensorParallelDecodeHasAMeasuredMfuOnEachRank) {
  auto store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  const int64_t run = testing::ImportZoo(store, "tp_infer", {"default_profile_raw.csv"});
  ASSERT_GT(run, 0);
  auto r = report::BuildRunReport(store, run, config::Config{});
  ASSERT_TRUE(r.ok()) << r.error().Line();
  bool pooled = false;
  for (const auto& s : r->stages) {
    if (s.display_name != "decode") continue;
    pooled = true;
    EXPECT_GE(s.mfu.coverage_pct, 90);
    EXPECT_LE(s.mfu.coverage_pct, 100);
    EXPECT_TRUE(s.mfu.measured_flops.has_value());
  }
  EXPECT_TRUE(pooled);
  ASSERT_EQ(r->ranks.size(), 2U);
  for (const auto& rank : r->ranks) {
    bool decode = false;
    for (const auto& t : rank.gpu_stages) {
      if (t.stage != "decode") continue;
      decode = true;
      ASSERT_TRUE(t.mfu_pct.has_value()) << "rank " << rank.rank.rank;
      EXPECT_GT(*t.mfu_pct, 0);
      EXPECT_EQ(t.mfu_source, "ncu");
    }
    EXPECT_TRUE(decode) << "rank " << rank.rank.rank;
  }
}

// The collectives each workload runs, as the export's NCCL kernels name them.
TEST(RanksZooModels, FsdpGathersAndScattersAndTensorParallelAllReduces) {
  for (const auto& [model, want] :
       {std::pair<std::string, std::set<std::string>>{"fsdp_train", {"AllGather", "ReduceScatter"}},
        {"tp_infer", {"AllReduce", "Broadcast"}}}) {
    auto db = std::move(sql::Db::Open(testing::ZooFile(model, "discovery.sqlite"), sql::OpenMode::kReadOnly)).value();
    auto q = db.Prepare(
        "SELECT DISTINCT d.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON d.id = k.demangledName");
    ASSERT_TRUE(q.ok());
    std::set<std::string> kinds;
    while (q->Step()) {
      if (auto c = analysis::CommunicationOf(q->Text(0)))
        kinds.insert(std::string(analysis::CollectiveKindName(c->kind)));
    }
    EXPECT_EQ(kinds, want) << model;
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, RanksZooModels, ::testing::Values("fsdp_train", "tp_infer"));

}  // namespace
}  // namespace kscope
