// One job's per-rank run directories as the nodes of a multi-node job write them, imported as
// one multi-rank run (capture/job_import.h). tests/data/jobs/tp_infer_2rank/ holds what the GPU
// machine's two H100s wrote (docs/gpu/issue21_multirank.sh, part w): torchrun started two
// ranks of zoo/models/tp_infer.py, each under its own `kscope profile --job tp-job-1
// profile.rank=RANK` (its own nsys session, its own ncu run, its own runs_dir: node0/, node1/),
// as two nodes' ranks are profiled; the exports' OS runtime tables were dropped and every file
// was compressed with zstd. Every figure is checked against SQL over the two exports.
#include "capture/job_import.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/timeline/ranks.h"
#include "capture/run_dir_import.h"
#include "config/config.h"
#include "import/nsys/export_manifest.h"
#include "rank_support.h"
#include "recorded_runner.h"
#include "report/run_report.h"
#include "store/event_reader.h"
#include "test_support.h"
#include "tools/rank.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

fs::path JobData() { return fs::path(KSCOPE_TEST_DATA_DIR) / "jobs" / "tp_infer_2rank"; }

fs::path NodeDir(int node) {
  auto dirs = capture::FindRunDirs(JobData() / ("node" + std::to_string(node)));
  EXPECT_TRUE(dirs.ok() && dirs->size() == 1);
  return dirs->front();
}

// A node's export, unpacked once per test process.
std::string NodeExport(int node) {
  static std::map<int, std::string> unpacked;
  if (auto it = unpacked.find(node); it != unpacked.end()) return it->second;
  const auto dir = fs::temp_directory_path() / ("kscope_job_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / ("node" + std::to_string(node) + ".sqlite")).string();
  std::ofstream(path, std::ios::binary) << testing::Unzstd((NodeDir(node) / "nsys" / "discovery.sqlite.zst").string());
  unpacked[node] = path;
  return path;
}

// SQL over one node's export: its one process's kernels.
struct NodeSql {
  int64_t pid = 0, device = -1, kernels = 0, kernel_ns = 0, first_start = 0;
};
NodeSql NodeBySql(int node) {
  auto db = std::move(sql::Db::Open(NodeExport(node), sql::OpenMode::kReadOnly)).value();
  auto q = db.Prepare(
      "SELECT min(globalPid >> 24 & 16777215), max(globalPid >> 24 & 16777215), max(deviceId), count(*), "
      "sum(end - start), min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  EXPECT_TRUE(q.ok() && q->Step());
  EXPECT_EQ(q->Int(0), q->Int(1)) << "one process per node";
  return {q->Int(0), q->Int(2), q->Int(3), q->Int(4), q->Int(5)};
}

store::Store NewStore() { return std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value(); }

Result<capture::RunDirOutcome> ImportJob(store::Store& store, const std::string& job = "") {
  const std::vector<fs::path> dirs{NodeDir(1), NodeDir(0)};  // in any order
  auto groups = capture::GroupByJob(dirs, job);
  if (!groups.ok()) return groups.error();
  EXPECT_EQ(groups->size(), 1U);
  return capture::ImportJobRunDirs(store, groups->front(), job.empty() ? *capture::JobIdOf(dirs.front()) : job, {}, {});
}

TEST(JobImport, EachRankRecordedItsJobAndRankInItsManifest) {
  for (int node : {0, 1}) {
    auto m = capture::ReadRunDirManifest(NodeDir(node));
    ASSERT_TRUE(m.ok()) << m.error().Line();
    EXPECT_EQ((*m)["job"]["id"], "tp-job-1");
    EXPECT_EQ((*m)["job"]["from"], "--job");
    EXPECT_EQ((*m)["job"]["rank"], node);
    EXPECT_EQ((*m)["job"]["rank_from"], "RANK");
    EXPECT_EQ((*m)["job"]["world_size"], 2);
  }
}

TEST(JobImport, TheDirectoriesOfOneJobGroupTogetherAndOthersStayAlone) {
  auto id = capture::JobIdOf(NodeDir(0));
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "tp-job-1");
  // A directory without a job (a copy whose manifest lost it) stays a run of its own.
  auto scratch = fs::temp_directory_path() / ("kscope_job_alone_" + std::to_string(getpid()));
  fs::create_directories(scratch / "7");
  auto m = capture::ReadRunDirManifest(NodeDir(0));
  ASSERT_TRUE(m.ok());
  m->erase("job");
  std::ofstream(scratch / "7" / "manifest.json") << m->dump();
  auto groups = capture::GroupByJob({NodeDir(0), scratch / "7", NodeDir(1)}, "");
  ASSERT_TRUE(groups.ok());
  ASSERT_EQ(groups->size(), 2U);
  EXPECT_EQ((*groups)[0], (std::vector<fs::path>{NodeDir(0), NodeDir(1)}));
  EXPECT_EQ((*groups)[1], (std::vector<fs::path>{scratch / "7"}));
  // A second profile of rank 0 in the same job, and a sweep's point, are not other nodes.
  fs::create_directories(scratch / "8");
  fs::create_directories(scratch / "9");
  auto again = capture::ReadRunDirManifest(NodeDir(0));
  ASSERT_TRUE(again.ok());
  std::ofstream(scratch / "8" / "manifest.json") << again->dump();
  (*again)["job"]["rank"] = 5;
  (*again)["sweep_point"] = {{"batch", "8"}};
  std::ofstream(scratch / "9" / "manifest.json") << again->dump();
  auto more = capture::GroupByJob({NodeDir(0), scratch / "8", NodeDir(1), scratch / "9"}, "");
  ASSERT_TRUE(more.ok());
  ASSERT_EQ(more->size(), 3U);
  EXPECT_EQ((*more)[0], (std::vector<fs::path>{NodeDir(0), NodeDir(1)}));
  EXPECT_EQ((*more)[1], (std::vector<fs::path>{scratch / "8"}));
  EXPECT_EQ((*more)[2], (std::vector<fs::path>{scratch / "9"}));
  // --job puts every directory named in one group.
  auto forced = capture::GroupByJob({NodeDir(0), scratch / "7"}, "mine");
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->size(), 1U);
  fs::remove_all(scratch);
}

TEST(JobImport, EachNodesProcessIsARankWithItsOwnKernelsAndGpu) {
  auto store = NewStore();
  auto out = ImportJob(store);
  ASSERT_TRUE(out.ok()) << out.error().Line();
  auto ranks = analysis::ReadRanks(store, out->run_id);
  ASSERT_TRUE(ranks.ok());
  ASSERT_EQ(ranks->size(), 2U);
  for (int node : {0, 1}) {
    const NodeSql want = NodeBySql(node);
    const auto& r = (*ranks)[static_cast<size_t>(node)];
    EXPECT_EQ(r.rank, node);
    EXPECT_EQ(r.pid, want.pid);
    EXPECT_EQ(r.device, want.device);
    EXPECT_EQ(r.kernels, want.kernels);
    EXPECT_EQ(r.global_pid >> 48, node + 1) << "each node on a host of its own";
  }
}

TEST(JobImport, EachNodeIsPlacedByItsSessionStart) {
  auto store = NewStore();
  auto out = ImportJob(store);
  ASSERT_TRUE(out.ok()) << out.error().Line();
  auto s0 = import::nsys::SessionStartNs(NodeExport(0));
  auto s1 = import::nsys::SessionStartNs(NodeExport(1));
  ASSERT_TRUE(s0.ok() && s1.ok());
  const int64_t first = std::min(*s0, *s1);
  auto cols = store::ReadColumns(store.db(), out->run_id, store::kKernelStream,
                                 {store::kernel::kStart, store::kernel::kEnd, store::kernel::kGlobalPid});
  ASSERT_TRUE(cols.ok());
  std::map<int64_t, int64_t> first_start, busy;  // by host
  for (size_t i = 0; i < (*cols)[0].size(); ++i) {
    const int64_t host = (*cols)[2][i] >> 48;
    auto [it, added] = first_start.try_emplace(host, (*cols)[0][i]);
    if (!added) it->second = std::min(it->second, (*cols)[0][i]);
    busy[host] += (*cols)[1][i] - (*cols)[0][i];
  }
  for (int node : {0, 1}) {
    const NodeSql want = NodeBySql(node);
    const int64_t offset = (node == 0 ? *s0 : *s1) - first;
    EXPECT_EQ(first_start[node + 1], want.first_start + offset);
    EXPECT_EQ(busy[node + 1], want.kernel_ns);
  }
  // The manifest says where each directory went.
  auto text = store.RunCapture(out->run_id);
  ASSERT_TRUE(text.ok());
  auto capture = nlohmann::json::parse(*text);
  ASSERT_EQ(capture["job"]["nodes"].size(), 2U);
  EXPECT_EQ(capture["job"]["id"], "tp-job-1");
  EXPECT_EQ(capture["job"]["nodes"][1]["offset_ns"], *s1 - first);
}

TEST(JobImport, TheKernelSummaryIsBothExportsTogether) {
  auto store = NewStore();
  auto out = ImportJob(store);
  ASSERT_TRUE(out.ok()) << out.error().Line();
  std::map<std::string, std::pair<int64_t, int64_t>> want, got;
  for (int node : {0, 1}) {
    auto db = std::move(sql::Db::Open(NodeExport(node), sql::OpenMode::kReadOnly)).value();
    auto q = db.Prepare(
        "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
        "k.demangledName GROUP BY s.value");
    ASSERT_TRUE(q.ok());
    while (q->Step()) {
      want[q->Text(0)].first += q->Int(1);
      want[q->Text(0)].second += q->Int(2);
    }
  }
  auto q = store.db().Prepare(
      "SELECT s.value, k.n, k.total FROM kernel_summary k JOIN string s ON s.id = k.name_id WHERE k.run_id = ?1");
  ASSERT_TRUE(q.ok());
  q->Bind(1, out->run_id);
  while (q->Step()) got[q->Text(0)] = {q->Int(1), q->Int(2)};
  EXPECT_EQ(got, want);
}

TEST(JobImport, EveryNodesProfiledLaunchIsLinkedToItsOwnRanksKernel) {
  auto store = NewStore();
  auto out = ImportJob(store);
  ASSERT_TRUE(out.ok()) << out.error().Line();
  auto q = store.db().Prepare(
      "SELECT count(*), sum(kernel_link = 'planned'), count(DISTINCT pid) FROM ncu_launch WHERE run_id = ?1");
  ASSERT_TRUE(q.ok());
  q->Bind(1, out->run_id);
  ASSERT_TRUE(q->Step());
  EXPECT_GT(q->Int(0), 0);
  EXPECT_EQ(q->Int(1), q->Int(0)) << "every profiled launch linked to its planned kernel";
  EXPECT_EQ(q->Int(2), 2) << "both ranks' ncu runs";
  EXPECT_EQ(out->linked, q->Int(0));
  // A launch's kernel row is its own node's (the ncu pass ran the workload again, as another
  // process): the kernel's host is the node whose report the launch came from.
  auto cols = store::ReadColumns(store.db(), out->run_id, store::kKernelStream, {store::kernel::kGlobalPid});
  ASSERT_TRUE(cols.ok());
  auto l = store.db().Prepare(
      "SELECT f.path, l.kernel_index FROM ncu_launch l JOIN source_file f ON f.id = l.source_id WHERE l.run_id = ?1");
  ASSERT_TRUE(l.ok());
  l->Bind(1, out->run_id);
  std::map<int64_t, int64_t> per_host;
  while (l->Step()) {
    const auto row = static_cast<size_t>(l->Int(1));
    ASSERT_LT(row, (*cols)[0].size());
    const int64_t node = l->Text(0).find("/node1/") != std::string::npos ? 1 : 0;
    EXPECT_EQ((*cols)[0][row] >> 48, node + 1) << l->Text(0);
    ++per_host[node + 1];
  }
  EXPECT_EQ(per_host, (std::map<int64_t, int64_t>{{1, 6}, {2, 6}}));
}

// The report's distributed view of the job's run: each rank's times are its node's export's,
// and the collectives' waits come from both nodes' starts placed by their session starts.
TEST(JobImport, TheReportsRanksComeFromBothNodesOnOneTimeline) {
  auto store = NewStore();
  auto out = ImportJob(store);
  ASSERT_TRUE(out.ok()) << out.error().Line();
  auto s0 = import::nsys::SessionStartNs(NodeExport(0));
  auto s1 = import::nsys::SessionStartNs(NodeExport(1));
  ASSERT_TRUE(s0.ok() && s1.ok());
  const int64_t first = std::min(*s0, *s1);
  std::vector<std::vector<testing::ExportKernel>> kernels;
  for (auto [node, start] : {std::pair{0, *s0}, std::pair{1, *s1}}) {
    auto of_node = testing::KernelsByProcess(NodeExport(node), start - first);
    ASSERT_EQ(of_node.size(), 1U);
    kernels.push_back(std::move(of_node.front()));
  }
  auto r = report::BuildRunReport(store, out->run_id, config::Config{});
  ASSERT_TRUE(r.ok()) << r.error().Line();
  ASSERT_EQ(r->ranks.size(), 2U);
  const auto waits = testing::CollectiveWaits(kernels);
  for (size_t i = 0; i < 2; ++i) {
    int64_t total = 0;
    for (const auto& k : kernels[i]) total += k.end - k.start;
    EXPECT_EQ(r->ranks[i].kernel_ns, total);
    EXPECT_EQ(r->ranks[i].exposed_communication_ns, testing::ExposedCommunication(kernels[i]));
    EXPECT_EQ(r->ranks[i].collective_wait_ns, waits[i]);
  }
  ASSERT_TRUE(r->straggler);
  EXPECT_EQ(r->straggler->rank, waits[0] < waits[1] ? 0 : 1);
}

TEST(JobImport, JobFromTheEnvironment) {
  using M = std::map<std::string, std::string>;
  EXPECT_EQ(capture::JobFromEnvironment(M{{"SLURM_JOB_ID", "4242"}, {"TORCHELASTIC_RUN_ID", "x"}}, "")->id, "4242");
  EXPECT_EQ(capture::JobFromEnvironment(M{{"TORCHELASTIC_RUN_ID", "abc"}}, "")->source, "TORCHELASTIC_RUN_ID");
  EXPECT_FALSE(capture::JobFromEnvironment(M{{"TORCHELASTIC_RUN_ID", "none"}}, "")) << "torchrun's default id";
  EXPECT_EQ(capture::JobFromEnvironment(M{{"SLURM_JOB_ID", "4242"}}, "mine")->source, "--job");
  const auto j = capture::JobJson(M{{"SLURM_JOB_ID", "7"}, {"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "8"}}, "");
  EXPECT_EQ(
      j, nlohmann::json(
             {{"id", "7"}, {"from", "SLURM_JOB_ID"}, {"rank", 3}, {"rank_from", "SLURM_PROCID"}, {"world_size", 8}}));
  EXPECT_TRUE(capture::JobJson(M{}, "").is_null());
}

}  // namespace
}  // namespace kscope
