// A 2-rank DDP training job as kscope profiled it on two H100s (tests/data/zoo/ddp_train/:
// `kscope profile -- torchrun --nproc_per_node=2 zoo/models/ddp_train.py` with the defaults,
// docs/gpu/issue21_ranks.sh): its nsys export, which holds both ranks, and ncu's raw page of
// the deep pass. The communication kernels are the export's NCCL kernels; the selection is rank
// 0's compute kernels, as SQL over the export counts them; ncu profiled rank 0's GPU alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "analysis/names/communication.h"
#include "analysis/timeline/ranks.h"
#include "capture/commands.h"
#include "capture/selection.h"
#include "config/config.h"
#include "test_support.h"
#include "zoo_support.h"

namespace kscope {
namespace {

store::Store NewStore() { return std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value(); }

sql::Db Export() {
  return std::move(sql::Db::Open(testing::ZooFile("ddp_train", "discovery.sqlite"), sql::OpenMode::kReadOnly)).value();
}

TEST(RanksZoo, TheCommunicationKernelsAreTheExportsNcclKernels) {
  auto db = Export();
  auto q = db.Prepare(
      "SELECT DISTINCT d.value, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON d.id = k.demangledName "
      "JOIN StringIds s ON s.id = k.shortName");
  ASSERT_TRUE(q.ok());
  std::set<std::string> comm, nccl, kinds;
  size_t names = 0;
  while (q->Step()) {
    ++names;
    const std::string name = q->Text(0), short_name = q->Text(1);
    if (short_name.starts_with("nccl")) nccl.insert(name);
    if (auto c = analysis::CommunicationOf(name)) {
      comm.insert(name);
      kinds.insert(std::string(c->library) + " " + std::string(analysis::CollectiveKindName(c->kind)));
    }
  }
  EXPECT_GT(names, 50U);
  EXPECT_EQ(comm, nccl);
  EXPECT_EQ(kinds, (std::set<std::string>{"NCCL AllGather", "NCCL AllReduce", "NCCL Broadcast"}));
}

// Rank 0's figures by SQL on the export: its process (the lower process ID of the two that
// launched kernels), its GPU, its NCCL and compute kernels.
struct RankSql {
  int64_t pid = 0, device = -1, comm_launches = 0, comm_ns = 0, compute_launches = 0, compute_ns = 0;
};
RankSql RankBySql(int64_t rank) {
  auto db = Export();
  auto q = db.Prepare(
      "WITH p AS (SELECT DISTINCT globalPid >> 24 & 16777215 AS pid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY pid "
      "LIMIT 1 OFFSET ?1) "
      "SELECT p.pid, max(k.deviceId), sum(s.value LIKE 'nccl%'), sum(CASE WHEN s.value LIKE 'nccl%' THEN k.end - "
      "k.start ELSE 0 END), sum(s.value NOT LIKE 'nccl%'), sum(CASE WHEN s.value NOT LIKE 'nccl%' THEN k.end - "
      "k.start ELSE 0 END) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
      "JOIN p ON k.globalPid >> 24 & 16777215 = p.pid");
  EXPECT_TRUE(q.ok());
  q->Bind(1, rank);
  EXPECT_TRUE(q->Step());
  return {q->Int(0), q->Int(1), q->Int(2), q->Int(3), q->Int(4), q->Int(5)};
}

TEST(RanksZoo, TheSelectionIsRankZerosComputeKernelsAndNcuProfilesItsGpu) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "ddp_train");
  ASSERT_GT(run, 0);
  const config::Config defaults;
  // Without warm-up, the scope is exactly rank 0's kernels: the compute ones in it, the NCCL
  // ones left out and counted.
  for (int64_t rank : {0, 1}) {
    const RankSql want = RankBySql(rank);
    auto sel = capture::SelectKernels(store, run, defaults.selection, 17, 0, rank);
    ASSERT_TRUE(sel.ok()) << sel.error().Line();
    EXPECT_EQ(sel->ranks, 2);
    EXPECT_EQ(sel->rank, rank);
    EXPECT_EQ(sel->rank_pid, want.pid);
    EXPECT_EQ(sel->device, want.device);
    EXPECT_EQ(sel->device, rank);  // torchrun's local rank r on GPU r
    EXPECT_EQ(sel->comm_kernels, 3);
    EXPECT_EQ(sel->comm_launches, want.comm_launches);
    EXPECT_EQ(sel->comm_ns, want.comm_ns);
    EXPECT_EQ(sel->scope_kernels, want.compute_launches);
    EXPECT_EQ(sel->scope_ns, want.compute_ns);
    for (const auto& k : sel->kernels) EXPECT_FALSE(analysis::CommunicationOf(k.name)) << k.name;
  }
  // The defaults, as the GPU run made them: rank 0's steady compute time, 90% of it deep.
  auto sel = capture::SelectKernels(store, run, defaults.selection, capture::EstimatedPasses(defaults.ncu),
                                    defaults.stages.warmup, defaults.profile.ncu_rank);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  EXPECT_GE(sel->deep_pct, 90);
  EXPECT_EQ(sel->limited_by, "coverage");
  EXPECT_EQ(sel->warmup_stages, std::vector<std::string>{"step"});
  const auto argv = capture::NcuProfileArgv("ncu", defaults.ncu, *sel, sel->passes[0], {}, "out", {"torchrun"});
  const std::string line = capture::ShellQuote(argv);
  EXPECT_NE(line.find(" --devices 0 --replay-mode kernel "), std::string::npos) << line;
  EXPECT_NE(capture::FormatSelection(*sel).find("communication left out: 3 kernels"), std::string::npos);

  auto bad = capture::SelectKernels(store, run, defaults.selection, 17, 1, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where, "profile.ncu_rank");
}

// The store's ranks (run_rank, derived at import): per process that launched kernels, in process
// order, by SQL on the export: its process ID, its launches, the GPU most of them ran on.
TEST(RanksZoo, TheStoreHoldsEachProcessAsARankWithItsGpu) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "ddp_train");
  ASSERT_GT(run, 0);
  auto db = Export();
  auto q = db.Prepare(
      "SELECT globalPid, globalPid >> 24 & 16777215, count(*), (SELECT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL d "
      "WHERE d.globalPid = k.globalPid GROUP BY deviceId ORDER BY count(*) DESC LIMIT 1) "
      "FROM CUPTI_ACTIVITY_KIND_KERNEL k GROUP BY globalPid ORDER BY globalPid");
  ASSERT_TRUE(q.ok());
  std::vector<analysis::RunRank> want;
  while (q->Step()) {
    want.push_back({static_cast<int64_t>(want.size()), q->Int(0), q->Int(1), q->Int(3), q->Int(2), "process order"});
  }
  ASSERT_EQ(want.size(), 2U);
  auto got = analysis::ReadRanks(store, run);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    EXPECT_EQ((*got)[r].rank, want[r].rank);
    EXPECT_EQ((*got)[r].global_pid, want[r].global_pid);
    EXPECT_EQ((*got)[r].pid, want[r].pid);
    EXPECT_EQ((*got)[r].device, want[r].device);
    EXPECT_EQ((*got)[r].kernels, want[r].kernels);
    EXPECT_EQ((*got)[r].rank_from, "process order");
  }
}

// The launcher wrapper (`mpirun ... kscope profile profile.rank=N`) runs one rank under nsys: its
// export records that process's environment, whose rank variable names the run's one rank.
TEST(RanksZoo, ARunOfOneProcessTakesTheRankItsEnvironmentNames) {
  const auto copy = std::filesystem::temp_directory_path() / "kscope_ranks_env_tiny.sqlite";
  std::filesystem::copy_file(testing::NsysData("tiny_cuda.sqlite"), copy,
                             std::filesystem::copy_options::overwrite_existing);
  {
    auto db = sql::Db::Open(copy.string(), sql::OpenMode::kReadWrite);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("INSERT INTO META_DATA_CAPTURE (name, value) VALUES ('PROCESS_0:ENVIRONMENT_VARIABLE', "
                         "'OMPI_COMM_WORLD_RANK=\"3\"')")
                    .ok());
  }
  auto store = NewStore();
  for (const auto& [path, rank, from] : {std::tuple{testing::NsysData("tiny_cuda.sqlite"), 0, "process order"},
                                         std::tuple{copy.string(), 3, "OMPI_COMM_WORLD_RANK"}}) {
    auto out = import::ImportFiles(store, {path}, {});
    ASSERT_TRUE(out.ok()) << out.error().Line();
    auto ranks = analysis::ReadRanks(store, out->front().run_id);
    ASSERT_TRUE(ranks.ok());
    ASSERT_EQ(ranks->size(), 1U);
    EXPECT_EQ(ranks->front().rank, rank);
    EXPECT_EQ(ranks->front().rank_from, from);
  }
  std::filesystem::remove(copy);
  // With several processes, each is a rank in process order: a launcher's variable is not theirs.
  const auto two = analysis::FindRanks({7 << 24, 5 << 24, 7 << 24}, {1, 0, 1}, analysis::EnvRank{4, "RANK"});
  ASSERT_EQ(two.size(), 2U);
  EXPECT_EQ(two[0].pid, 5);
  EXPECT_EQ(two[1].rank, 1);
  EXPECT_EQ(two[1].device, 1);
  EXPECT_EQ(two[1].kernels, 2);
}

TEST(RanksZoo, AskedForTheAllReduceNcuReplaysTheWholeJob) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "ddp_train");
  config::SelectionConfig cfg;
  cfg.kernel = "AllReduce";
  auto off = capture::SelectKernels(store, run, cfg, 11, 1, 0);
  ASSERT_FALSE(off.ok());
  EXPECT_NE(off.error().fix.find("selection.communication=on"), std::string::npos) << off.error().Line();
  cfg.communication = "on";
  auto on = capture::SelectKernels(store, run, cfg, 11, 1, 0);
  ASSERT_TRUE(on.ok()) << on.error().Line();
  ASSERT_EQ(on->kernels.size(), 1U);
  EXPECT_EQ(on->replay, "application");
  const auto argv = capture::NcuProfileArgv("ncu", config::NcuConfig{}, *on, on->passes[0], {}, "out", {"torchrun"});
  EXPECT_NE(capture::ShellQuote(argv).find(" --devices 0 --replay-mode application "), std::string::npos);
}

TEST(RanksZoo, NcuProfiledRankZerosGpuAlone) {
  // The deep pass of the GPU run: every launch ncu profiled ran in one process, on GPU 0.
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "ddp_train", {"default_profile_raw.csv"});
  ASSERT_GT(run, 0);
  auto q = store.db().Prepare("SELECT count(*), count(DISTINCT pid), min(device), max(device) FROM ncu_launch");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->Step());
  EXPECT_EQ(q->Int(0), 71);
  EXPECT_EQ(q->Int(1), 1);
  EXPECT_EQ(q->Int(2), 0);
  EXPECT_EQ(q->Int(3), 0);
}

}  // namespace
}  // namespace kscope
