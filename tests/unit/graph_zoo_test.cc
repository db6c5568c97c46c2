// The dependency graph of every zoo run (single GPU, no NVTX, CUDA graphs, an encoder-decoder,
// and the 2-GPU DDP, FSDP and tensor-parallel jobs): its edges counted against SQL over the
// nsys export itself, the recording replayed exactly at every point, and each step set's
// replay error and critical path.
#include <gtest/gtest.h>

#include <numeric>

#include "analysis/graph/dependency_graph.h"
#include "analysis/graph/graph_events.h"
#include "analysis/graph/replay.h"
#include "analysis/graph/whatif.h"
#include "zoo_support.h"

namespace kscope {
namespace {

namespace g = analysis::graph;

const std::vector<std::string> kRuns = {"decoder_infer", "encoder_bert",  "vit_infer",    "moe_decoder",
                                        "decoder_train", "resnet_train",  "gpt2_infer",   "gpt2_compile_train",
                                        "no_nvtx_infer", "no_nvtx_train", "graph_replay", "encdec_infer",
                                        "ddp_train",     "fsdp_train",    "tp_infer",     "decoder_train_shapes"};

int64_t Sql(const std::string& model, const std::string& sql) {
  auto db = sql::Db::Open(testing::ZooFile(model, "discovery.sqlite"), sql::OpenMode::kReadOnly);
  EXPECT_TRUE(db.ok());
  auto q = db->Prepare(sql);
  EXPECT_TRUE(q.ok()) << sql;
  return q.ok() && q->Step() ? q->Int(0) : -1;
}

// The export's GPU operations, all three tables.
std::string Ops(const std::string& columns) {
  return "SELECT " + columns + " FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT " + columns +
         " FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT " + columns + " FROM CUPTI_ACTIVITY_KIND_MEMSET";
}

class GraphZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(GraphZoo, EdgesEqualTheExportAndTheRecordingReplaysExactlyInEveryStep) {
  const std::string model = GetParam();
  auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(store.ok());
  const int64_t run = testing::ImportZoo(*store, model);
  ASSERT_GT(run, 0);
  auto events = g::LoadGraphEvents(*store, run);
  ASSERT_TRUE(events.ok()) << events.error().Line();
  const g::DependencyGraph graph = g::BuildGraph(std::move(*events));
  auto kind = [&](g::EdgeKind k) { return graph.edges_by_kind[static_cast<size_t>(k)]; };
  // A launch edge per operation whose process made a call of its correlation id.
  EXPECT_EQ(kind(g::EdgeKind::kLaunch),
            Sql(model, "SELECT count(*) FROM (" + Ops("correlationId c, globalPid >> 24 p") +
                           ") o JOIN (SELECT DISTINCT correlationId c, globalTid >> 24 p FROM "
                           "CUPTI_ACTIVITY_KIND_RUNTIME) r USING (c, p)"));
  // Each stream's operations in a chain; each thread's calls in one (outer or nested).
  EXPECT_EQ(kind(g::EdgeKind::kStreamOrder),
            Sql(model, "SELECT count(*) - count(DISTINCT s) FROM (" +
                           Ops("globalPid || ':' || deviceId || ':' || streamId s") + ")"));
  EXPECT_EQ(kind(g::EdgeKind::kHostOrder) + kind(g::EdgeKind::kNested),
            Sql(model, "SELECT count(*) - count(DISTINCT globalTid) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
  EXPECT_EQ(graph.gaps.ops_without_launch, static_cast<int64_t>(graph.ops) - kind(g::EdgeKind::kLaunch));
  // Every point of the replay where it was recorded.
  const g::Replayed r = g::Replay(graph);
  EXPECT_EQ(r.cyclic, 0);
  int64_t off = 0;
  for (uint32_t p = 0; p < graph.points(); ++p) off += r.time[p] != graph.recorded(p) ? 1 : 0;
  EXPECT_EQ(off, 0) << "points replayed away from their recorded time";
  // Jobs of two ranks: their collectives matched.
  if (model == "ddp_train" || model == "fsdp_train" || model == "tp_infer") {
    EXPECT_GT(kind(g::EdgeKind::kCollective), 0);
  }
  // Each step set's replay within 3% of the recording, its critical path no longer than its
  // steps, each kernel's time on the path no more than its GPU time.
  auto answer = g::AnswerWhatIf(*store, run, {}, {});
  ASSERT_TRUE(answer.ok()) << answer.error().Line();
  for (const g::StepAnswer& s : answer->steps) {
    EXPECT_LE(std::abs(s.replay_error_pct), 3.0) << s.name;
    EXPECT_EQ(s.predicted_ns, s.replayed_ns) << s.name << ": no edit, no change";
    const double path = std::accumulate(s.before.begin(), s.before.end(), 0.0);
    EXPECT_LE(path, s.typical_recorded_ns + 1) << s.name;
    EXPECT_GT(path, 0) << s.name;
    for (const auto& k : s.kernels) EXPECT_LE(k.path_ns, k.gpu_ns + 1) << s.name << " " << k.name;
    // A job's ranks split the path between them, part by part.
    if (!s.ranks.empty()) {
      for (size_t p = 0; p < g::kPathParts; ++p) {
        double total = 0;
        for (const auto& rank : s.ranks) total += rank.parts[p];
        EXPECT_NEAR(total, s.before[p], 1.0) << s.name << " part " << p;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, GraphZoo, ::testing::ValuesIn(kRuns));

}  // namespace
}  // namespace kscope
