// The distributed view of the report (`ranks`, `straggler`) on the zoo's 2-rank DDP training
// (tests/data/zoo/ddp_train/): every per-rank figure against SQL over the nsys export itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "analysis/names/communication.h"
#include "config/config.h"
#include "rank_support.h"
#include "report/report_text.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "zoo_support.h"

namespace kscope {
namespace {

sql::Db Export() {
  return std::move(sql::Db::Open(testing::ZooFile("ddp_train", "discovery.sqlite"), sql::OpenMode::kReadOnly)).value();
}

report::RunReport DdpReport() {
  static store::Store store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  static const int64_t run = testing::ImportZoo(store, "ddp_train", {"default_profile_raw.csv"});
  auto r = report::BuildRunReport(store, run, config::Config{});
  EXPECT_TRUE(r.ok()) << r.error().Line();
  return std::move(r).value();
}

// The collectives matched across the ranks by SQL over the export: the i-th of a kind on each
// rank is one collective (the kind: the name's word after ncclDevKernel_); per rank (process
// order), what its matched collectives waited for the last to arrive (the last start less its
// own), how many were matched, and its `step` ranges.
enum class Matched {
  kAll,
  // Those every rank launched inside one of its `step` ranges after its first (stages.warmup).
  kInSteadySteps,
};
struct MatchedSql {
  std::vector<int64_t> wait, steps;
  int64_t matched = 0;
};
MatchedSql MatchedBySql(Matched which) {
  auto db = Export();
  auto q = db.Prepare(
      "WITH st AS (SELECT globalTid >> 24 & 16777215 AS pid, start, end, "
      "row_number() OVER (PARTITION BY globalTid >> 24 & 16777215 ORDER BY start) AS i FROM NVTX_EVENTS "
      "WHERE text = 'step'), "
      "c AS (SELECT k.globalPid AS g, k.start, substr(s.value, 15, instr(substr(s.value, 15), '_') - 1) AS kind, "
      "EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME rt JOIN st ON st.pid = rt.globalTid >> 24 & 16777215 "
      "WHERE rt.correlationId = k.correlationId AND rt.globalTid >> 24 = k.globalPid >> 24 AND st.i > 1 "
      "AND rt.start BETWEEN st.start AND st.end) AS steady "
      "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
      "WHERE s.value LIKE 'ncclDevKernel%'), "
      "n AS (SELECT g, kind, start, steady, row_number() OVER (PARTITION BY g, kind ORDER BY start) AS i FROM c), "
      "m AS (SELECT kind, i, max(start) AS last, count(*) AS ranks, min(steady) AS steady FROM n GROUP BY kind, i) "
      "SELECT n.g, sum(m.last - n.start), count(*), (SELECT count(*) FROM st WHERE st.pid = n.g >> 24 & 16777215) "
      "FROM n JOIN m USING (kind, i) WHERE m.ranks = 2 " +
      std::string(which == Matched::kInSteadySteps ? "AND m.steady = 1 " : "") + "GROUP BY n.g ORDER BY n.g");
  EXPECT_TRUE(q.ok());
  MatchedSql out;
  while (q.ok() && q->Step()) {
    out.wait.push_back(q->Int(1));
    out.matched = q->Int(2);
    out.steps.push_back(q->Int(3));
  }
  return out;
}

TEST(RanksReport, EachRanksKernelTimesAreTheExportsByProcess) {
  const report::RunReport r = DdpReport();
  const auto kernels = testing::KernelsByProcess(testing::ZooFile("ddp_train", "discovery.sqlite"));
  ASSERT_EQ(kernels.size(), 2U);
  ASSERT_EQ(r.ranks.size(), 2U);
  for (size_t i = 0; i < 2; ++i) {
    const auto& rank = r.ranks[i];
    const auto [total, comm, kinds] = testing::TimesOf(kernels[i]);
    EXPECT_EQ(rank.rank.rank, static_cast<int64_t>(i));
    EXPECT_EQ(rank.rank.device, static_cast<int64_t>(i));  // torchrun's local rank r on GPU r
    EXPECT_EQ(rank.kernels, static_cast<int64_t>(kernels[i].size()));
    EXPECT_EQ(rank.kernel_ns, total);
    EXPECT_EQ(rank.communication_ns, comm);
    EXPECT_EQ(rank.compute_ns, total - comm);
    EXPECT_EQ(rank.exposed_communication_ns, testing::ExposedCommunication(kernels[i]));
    EXPECT_GT(rank.exposed_communication_ns, 0);
    EXPECT_LE(rank.exposed_communication_ns, rank.communication_ns);
    std::map<std::string, std::pair<int64_t, int64_t>> got;
    for (const auto& c : rank.collectives) got[c.kind] = {c.count, c.ns};
    EXPECT_EQ(got, kinds);
  }
}

// The i-th collective of a kind on each rank is one collective: its last start, less each
// rank's own, summed per rank, in SQL (the kind: the name's word after ncclDevKernel_).
TEST(RanksReport, CollectiveWaitsAndTheStragglerAreTheExportsStartSkew) {
  const report::RunReport r = DdpReport();
  const MatchedSql sql = MatchedBySql(Matched::kAll);
  const std::vector<int64_t>& wait = sql.wait;
  const int64_t matched = sql.matched;
  ASSERT_EQ(wait.size(), 2U);
  ASSERT_EQ(r.ranks.size(), 2U);
  EXPECT_EQ(r.ranks[0].collective_wait_ns, wait[0]);
  EXPECT_EQ(r.ranks[1].collective_wait_ns, wait[1]);
  ASSERT_TRUE(r.straggler);
  EXPECT_EQ(r.straggler->matched, matched);
  EXPECT_EQ(r.straggler->late_ns, wait[1 - r.straggler->rank] - wait[r.straggler->rank]);
  EXPECT_FALSE(r.straggler->advice.empty());
  // Each rank's top-level stages: step, forward, backward, optimizer, as many instances as SQL counts.
  for (const auto& rank : r.ranks) {
    std::set<std::string> names;
    for (const auto& st : rank.stages) {
      names.insert(st.stage);
      EXPECT_GT(st.median_wall_ns, 0) << st.stage;
    }
    EXPECT_TRUE(names.contains("step")) << rank.rank.rank;
  }
}

// The straggler is judged on the steady steps: the collectives each rank launched inside one of
// its `step` ranges after its first (stages.warmup), matched across ranks as above, their waits
// summed per rank in SQL; the lag per step is the other rank's wait less the straggler's, over
// the straggler's steady steps. The first step (NCCL's set-up, the first all-reduces) is left out.
TEST(RanksReport, TheStragglerIsJudgedOnTheSteadySteps) {
  const report::RunReport r = DdpReport();
  const MatchedSql sql = MatchedBySql(Matched::kInSteadySteps);
  const std::vector<int64_t>& wait = sql.wait;
  const int64_t matched = sql.matched;
  std::vector<int64_t> steps;  // each rank's steady steps: all but its first
  for (int64_t n : sql.steps) steps.push_back(n - 1);
  ASSERT_EQ(wait.size(), 2U);
  ASSERT_TRUE(r.straggler);
  const int64_t last = wait[0] < wait[1] ? 0 : 1;
  EXPECT_EQ(r.straggler->rank, last);
  EXPECT_GT(matched, 0);
  EXPECT_LT(matched, r.straggler->matched);
  EXPECT_EQ(r.straggler->matched_steady, matched);
  EXPECT_EQ(r.straggler->step_stage, "step");
  EXPECT_EQ(r.straggler->steps, steps[static_cast<size_t>(last)]);
  EXPECT_DOUBLE_EQ(r.straggler->late_per_step_ns,
                   static_cast<double>(wait[static_cast<size_t>(1 - last)] - wait[static_cast<size_t>(last)]) /
                       static_cast<double>(steps[static_cast<size_t>(last)]));
  // Per step it arrives later than the others by less than a steady step lasts.
  for (const auto& st : r.ranks[static_cast<size_t>(last)].stages) {
    if (st.stage != "step") continue;
    EXPECT_LT(r.straggler->late_per_step_ns, static_cast<double>(st.median_wall_ns));
    // Within 5% of a step, with as much compute, the verdict is that the ranks are balanced.
    const bool balanced = r.straggler->late_per_step_ns < 0.05 * static_cast<double>(st.median_wall_ns) &&
                          r.straggler->extra_compute_per_step_ns < 0.05 * static_cast<double>(st.median_wall_ns);
    EXPECT_EQ(r.straggler->advice.starts_with("the ranks are balanced"), balanced) << r.straggler->advice;
  }
}

// A rank's step times (the straggler's steps, the ranks table) and its own report's stages warm up
// by one rule: each top-level stage's instances and steady instances, and their median wall time,
// are those the rank's report (built from its selection of the run's events) gives the stage.
TEST(RanksReport, EachRanksStageTimesAreThoseOfItsOwnReport) {
  const report::RunReport r = DdpReport();
  ASSERT_EQ(r.ranks.size(), 2U);
  for (const auto& rank : r.ranks) {
    ASSERT_FALSE(rank.stages.empty()) << rank.rank.rank;
    for (const auto& t : rank.stages) {
      const auto own = std::find_if(rank.gpu_stages.begin(), rank.gpu_stages.end(),
                                    [&](const auto& s) { return s.depth == 0 && s.stage == t.stage; });
      ASSERT_NE(own, rank.gpu_stages.end()) << t.stage;
      EXPECT_EQ(t.instances, own->instances) << t.stage;
      EXPECT_EQ(t.steady, own->steady) << t.stage;
      EXPECT_LT(t.steady, t.instances) << t.stage;  // stages.warmup leaves each rank's first out
      EXPECT_DOUBLE_EQ(t.median_wall_ns, own->median_wall_ns) << t.stage;
    }
  }
}

// The stage figures pool the ranks' instances: a note says so, and that the FLOPs are those ncu
// measured on rank 0's GPU (its deep pass ran on GPU 0 alone).
TEST(RanksReport, ANoteSaysHowStageFiguresTreatTheRanks) {
  const report::RunReport r = DdpReport();
  const auto note =
      std::find_if(r.notes.begin(), r.notes.end(), [](const std::string& n) { return n.starts_with("2 ranks:"); });
  ASSERT_NE(note, r.notes.end());
  EXPECT_NE(note->find("the FLOPs ncu measured on rank 0's GPU"), std::string::npos) << *note;
  for (const auto& st : r.stages) {
    for (const auto& line : st.mfu.lines) {
      if (line.mfu_pct) {
        EXPECT_GT(*line.mfu_pct, 0.01) << st.display_name;  // not the 4.08e-11% of issue 21
      }
    }
  }
}

TEST(RanksReport, TheViewsShowTheRanksAndReportJsonHoldsThem) {
  const report::RunReport r = DdpReport();
  const auto j = report::ToJson(r);
  ASSERT_TRUE(j.contains("ranks"));
  ASSERT_EQ(j["ranks"].size(), 2U);
  EXPECT_EQ(j["ranks"][1]["communication_ns"], r.ranks[1].communication_ns);
  EXPECT_EQ(j["straggler"]["rank"], r.straggler->rank);
  std::ostringstream text, md;
  report::WriteReportSummary(r, text);
  report::WriteReportMarkdown(r, md);
  EXPECT_NE(text.str().find("Ranks (each process that launched GPU kernels)"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("straggler: rank " + std::to_string(r.straggler->rank)), std::string::npos);
  EXPECT_NE(md.str().find("## Ranks"), std::string::npos);
  // The nsys export carries no NCCL message sizes (its NVTX payloads are empty): no bytes, "-".
  for (const auto& rank : r.ranks) {
    for (const auto& c : rank.collectives) EXPECT_FALSE(c.bytes.has_value()) << c.kind;
  }
  EXPECT_FALSE(j["ranks"][0]["collectives"][0].contains("bytes"));
  EXPECT_NE(text.str().find("AllReduce " + std::to_string(r.ranks[0].collectives[0].count) + "x "), std::string::npos);
  EXPECT_NE(text.str().find(" -"), std::string::npos);
}

}  // namespace
}  // namespace kscope
