// Every per-GPU figure of a multi-GPU job per rank (kscope report --rank N, and each rank's row
// of the whole run's report) on the zoo's 2-rank DDP training (tests/data/zoo/ddp_train/),
// against SQL over the nsys export itself: the rank's kernels, copies and API calls, its GPU's
// busy time, its stages' instances, first and steady wall times and nsys's projection of them,
// its kernel summary, and MFU against one GPU's peak.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/timeline/intervals.h"
#include "config/config.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "zoo_support.h"

namespace kscope {
namespace {

sql::Db Export() {
  return std::move(sql::Db::Open(testing::ZooFile("ddp_train", "discovery.sqlite"), sql::OpenMode::kReadOnly)).value();
}

// The process of rank `rank`: the rank-th process ID, in order, of those that launched kernels.
constexpr const char* kRankPid =
    "(SELECT DISTINCT globalPid >> 24 & 16777215 AS pid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY pid LIMIT 1 OFFSET "
    "?1)";

struct Imported {
  store::Store store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  int64_t run = testing::ImportZoo(store, "ddp_train", {"default_profile_raw.csv"});
};
Imported& Ddp() {
  static Imported imported;
  return imported;
}

report::RunReport Report(std::optional<int64_t> rank) {
  auto r = report::BuildRunReport(Ddp().store, Ddp().run, config::Config{}, rank);
  EXPECT_TRUE(r.ok()) << r.error().Line();
  return std::move(r).value();
}

int64_t SqlInt(const std::string& sql, int64_t rank) {
  auto db = Export();
  auto q = db.Prepare(sql);
  EXPECT_TRUE(q.ok()) << sql;
  q->Bind(1, rank);
  EXPECT_TRUE(q->Step()) << sql;
  return q->Int(0);
}

// The union of the rank's kernels, copies and sets on its GPU.
int64_t BusyBySql(int64_t rank) {
  auto db = Export();
  auto q =
      db.Prepare(std::string("SELECT start, end FROM (SELECT start, end, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL "
                             "UNION ALL SELECT start, end, globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL "
                             "SELECT start, end, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET) WHERE globalPid >> 24 "
                             "& 16777215 = ") +
                 kRankPid);
  EXPECT_TRUE(q.ok());
  q->Bind(1, rank);
  std::vector<analysis::TimeWindow> ops;
  while (q->Step()) ops.push_back({q->Int(0), q->Int(1)});
  return analysis::TotalNs(analysis::MergeIntervals(std::move(ops)));
}

// Each `step` range of the rank, in start order: its start to the later of its end and the end
// of the last GPU work whose launching call (same process, same correlation id) started inside.
std::vector<int64_t> StepWallsBySql(int64_t rank) {
  auto db = Export();
  auto q = db.Prepare(std::string("WITH p AS ") + kRankPid +
                      ", g AS (SELECT correlationId AS c, globalPid AS gp, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION "
                      "ALL SELECT correlationId, globalPid, end FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT "
                      "correlationId, globalPid, end FROM CUPTI_ACTIVITY_KIND_MEMSET), "
                      "w AS (SELECT r.start AS s, g.end AS e FROM g JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON "
                      "r.correlationId = g.c AND r.globalTid >> 24 = g.gp >> 24 JOIN p ON g.gp >> 24 & 16777215 = "
                      "p.pid) "
                      "SELECT max(n.end, coalesce((SELECT max(w.e) FROM w WHERE w.s >= n.start AND w.s <= n.end), 0)) "
                      "- n.start FROM NVTX_EVENTS n JOIN p ON n.globalTid >> 24 & 16777215 = p.pid WHERE n.text = "
                      "'step' ORDER BY n.start");
  EXPECT_TRUE(q.ok());
  q->Bind(1, rank);
  std::vector<int64_t> walls;
  while (q->Step()) walls.push_back(q->Int(0));
  return walls;
}

double MedianAsNsys(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? static_cast<double>(v[n / 2])
                    : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2;
}

const report::StagePart& Stage(const report::RunReport& r, const std::string& name) {
  auto it = std::find_if(r.stages.begin(), r.stages.end(), [&](const auto& s) { return s.display_name == name; });
  EXPECT_NE(it, r.stages.end()) << name;
  return *it;
}

TEST(RankReport, EachRanksTimelineIsItsProcesssEvents) {
  for (int64_t rank : {0, 1}) {
    const report::RunReport r = Report(rank);
    const std::string of = std::string(" WHERE globalPid >> 24 & 16777215 = ") + kRankPid;
    EXPECT_EQ(r.summary.kernels, SqlInt("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL" + of, rank));
    EXPECT_EQ(r.summary.kernel_ns, SqlInt("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL" + of, rank));
    EXPECT_EQ(r.summary.memops, SqlInt("SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY" + of +
                                           ") + (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET" + of + ")",
                                       rank));
    EXPECT_EQ(
        r.summary.api_calls,
        SqlInt(std::string("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid >> 24 & 16777215 = ") +
                   kRankPid,
               rank));
    EXPECT_EQ(r.summary.gpu_busy_ns, BusyBySql(rank));
    EXPECT_GT(r.summary.gpu_busy_pct, 0);
  }
}

TEST(RankReport, EachRanksStagesAreItsOwnInstances) {
  for (int64_t rank : {0, 1}) {
    const report::RunReport r = Report(rank);
    const auto walls = StepWallsBySql(rank);
    ASSERT_GT(walls.size(), 2U);
    const report::StagePart& step = Stage(r, "step");
    EXPECT_EQ(step.instances, static_cast<int64_t>(walls.size()));
    EXPECT_EQ(step.steady.wall.first, walls.front());
    const std::vector<int64_t> steady(walls.begin() + 1, walls.end());  // stages.warmup = 1
    EXPECT_EQ(step.steady.steady, static_cast<int64_t>(steady.size()));
    EXPECT_DOUBLE_EQ(step.steady.median_wall_ns, MedianAsNsys(steady));
    // nsys's projection of the rank's own ranges: GPU operations whose launching call lies in
    // a `step` range on the range's thread.
    EXPECT_EQ(step.gpu_ops,
              SqlInt(std::string("WITH p AS ") + kRankPid +
                         " SELECT count(*) FROM (SELECT DISTINCT n.start, g.c FROM NVTX_EVENTS n JOIN p ON "
                         "n.globalTid >> 24 & 16777215 = p.pid JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.globalTid = "
                         "n.globalTid AND r.start >= n.start AND r.end <= n.end JOIN (SELECT correlationId AS c, "
                         "globalPid AS gp FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT correlationId, globalPid "
                         "FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT correlationId, globalPid FROM "
                         "CUPTI_ACTIVITY_KIND_MEMSET) g ON g.c = r.correlationId AND g.gp >> 24 = r.globalTid >> 24 "
                         "WHERE n.text = 'step')",
                     rank));
    EXPECT_EQ(step.proj_instances, static_cast<int64_t>(walls.size()));
    // MFU of the steady steps against one GPU's peak: ncu's FLOPs per launch configuration
    // (measured on rank 0's GPU) over the rank's own mean steady wall time.
    const double mean_wall = static_cast<double>(std::accumulate(steady.begin(), steady.end(), int64_t{0})) /
                             static_cast<double>(steady.size());
    EXPECT_NEAR(step.mfu.wall_ns, mean_wall, 1e-6 * mean_wall);
    ASSERT_TRUE(step.mfu.mfu_pct && step.mfu.measured_flops && step.mfu.peak);
    EXPECT_NEAR(*step.mfu.mfu_pct, 100 * *step.mfu.measured_flops / (mean_wall * 1e-9) / step.mfu.peak->flops_per_s,
                1e-9 * *step.mfu.mfu_pct);
    EXPECT_GT(*step.mfu.mfu_pct, 0.01);  // not a communication kernel's peak (issue 21's 4.08e-11%)
    EXPECT_LT(*step.mfu.mfu_pct, 100);
  }
  // One GPU's peak for both ranks, never a sum over the GPUs.
  EXPECT_EQ(Stage(Report(0), "step").mfu.peak->flops_per_s, Stage(Report(1), "step").mfu.peak->flops_per_s);
}

TEST(RankReport, EachRanksKernelSummaryIsItsProcesssKernels) {
  for (int64_t rank : {0, 1}) {
    const report::RunReport r = Report(rank);
    auto db = Export();
    auto q =
        db.Prepare(std::string("SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                               "JOIN StringIds s ON s.id = k.demangledName WHERE k.globalPid >> 24 & 16777215 = ") +
                   kRankPid + " GROUP BY s.value ORDER BY 3 DESC, 2, 1");
    ASSERT_TRUE(q.ok());
    q->Bind(1, rank);
    for (const auto& k : r.top_kernels) {
      ASSERT_TRUE(q->Step());
      EXPECT_EQ(k.name, q->Text(0));
      EXPECT_EQ(k.launches, q->Int(1));
      EXPECT_EQ(k.total_ns, q->Int(2));
    }
    EXPECT_EQ(r.top_kernels.size(), 20U);
  }
}

// The whole run's report shows each rank's own figures: those of its --rank report.
TEST(RankReport, TheRunsRanksHoldEachRanksOwnFigures) {
  const report::RunReport all = Report(std::nullopt);
  ASSERT_EQ(all.ranks.size(), 2U);
  for (int64_t rank : {0, 1}) {
    const report::RunReport one = Report(rank);
    const report::RankPart& part = all.ranks[static_cast<size_t>(rank)];
    EXPECT_EQ(part.gpu_busy_ns, one.summary.gpu_busy_ns);
    EXPECT_EQ(part.gpu_busy_ns, BusyBySql(rank));
    ASSERT_EQ(part.gpu_stages.size(), one.stages.size());
    for (size_t i = 0; i < one.stages.size(); ++i) {
      EXPECT_EQ(part.gpu_stages[i].stage, one.stages[i].display_name);
      EXPECT_EQ(part.gpu_stages[i].instances, one.stages[i].instances);
      EXPECT_EQ(part.gpu_stages[i].first_wall_ns, one.stages[i].steady.wall.first);
      EXPECT_EQ(part.gpu_stages[i].median_wall_ns, one.stages[i].steady.median_wall_ns);
      EXPECT_EQ(part.gpu_stages[i].mfu_pct, one.stages[i].mfu.mfu_pct);
      EXPECT_EQ(part.gpu_stages[i].mbu_pct, one.stages[i].mfu.mbu_pct);
    }
    ASSERT_EQ(part.top_kernels.size(), 5U);
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(part.top_kernels[i].total_ns, one.top_kernels[i].total_ns);
    const auto j = report::ToJson(all)["ranks"][static_cast<size_t>(rank)];
    EXPECT_EQ(j["gpu_stages"].size(), part.gpu_stages.size());
    EXPECT_EQ(j["gpu_busy_ns"], part.gpu_busy_ns);
  }
  ASSERT_TRUE(all.straggler);
  EXPECT_FALSE(all.straggler->overlap_advice.empty());
}

TEST(RankReport, ARankTheRunDoesNotHaveIsOneLineNamingItsRanks) {
  auto r = report::BuildRunReport(Ddp().store, Ddp().run, config::Config{}, 7);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Line(), "kscope: error: run " + std::to_string(Ddp().run) +
                                  ": has no rank 7; its ranks are 0, 1; choose one of them with --rank");
}

// A run of one process: its rank 0's report, computed from the selection (its stages'
// projection from events, its kernel summary from its kernels), equals the run's report,
// computed from nsys's stored summaries, but for the note that names the rank.
TEST(RankReport, TheOneRankOfASingleProcessRunIsTheWholeRun) {
  store::Store store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  const int64_t run = testing::ImportZoo(store, "gpt2_infer");
  ASSERT_GT(run, 0);
  auto whole = report::BuildRunReport(store, run, config::Config{});
  auto one = report::BuildRunReport(store, run, config::Config{}, 0);
  ASSERT_TRUE(whole.ok() && one.ok());
  auto a = report::ToJson(*whole), b = report::ToJson(*one);
  auto& notes = b["notes"];
  auto note = std::find_if(notes.begin(), notes.end(),
                           [](const auto& n) { return n.template get<std::string>().starts_with("rank 0 of 1 "); });
  ASSERT_NE(note, notes.end());
  notes.erase(note);
  EXPECT_EQ(b["run"]["rank"]["rank"], 0);
  EXPECT_FALSE(a["run"].contains("rank"));
  b["run"].erase("rank");
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace kscope
