// The dependency graph, its replay and its critical path on synthetic runs (graph_builder.h):
// each edge kind, the recording replayed exactly, and what an edit moves.
#include "analysis/graph/dependency_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "analysis/graph/critical_path.h"
#include "analysis/graph/edits.h"
#include "analysis/graph/replay.h"
#include "analysis/graph/whatif.h"
#include "graph_builder.h"

namespace kscope::analysis::graph {
namespace {

using testing::GraphRunBuilder;

constexpr int64_t us = 1000;

std::vector<int64_t> Recorded(const DependencyGraph& g) {
  std::vector<int64_t> t(g.points());
  for (uint32_t p = 0; p < g.points(); ++p) t[p] = g.recorded(p);
  return t;
}

int64_t Count(const DependencyGraph& g, EdgeKind kind) { return g.edges_by_kind[static_cast<size_t>(kind)]; }

// Time on the path by part.
std::array<int64_t, kPathParts> Parts(const std::vector<PathSegment>& path) {
  std::array<int64_t, kPathParts> parts{};
  for (const auto& s : path) parts[static_cast<size_t>(s.part)] += s.end - s.start;
  return parts;
}

// A launch-bound loop: the host spends 20 us of Python and a 5 us launch per kernel of 2 us,
// then synchronizes; ten kernels.
struct LaunchBound {
  GraphRunBuilder b;
  int64_t t = b.Thread(1, 1);
  size_t sync = 0;
  LaunchBound() {
    int64_t at = 0;
    for (int k = 0; k < 10; ++k) {
      at += 20 * us;  // host work
      b.Launch(t, at, at + 5 * us, "small_kernel", at + 8 * us, at + 10 * us);
      at += 5 * us;
    }
    sync = b.Call(t, "cudaStreamSynchronize_v3020", at + 20 * us, at + 21 * us);
  }
};

TEST(DependencyGraph, EveryEdgeKindOfALaunchBoundLoop) {
  LaunchBound run;
  const DependencyGraph g = BuildGraph(run.b.Events());
  EXPECT_EQ(g.calls, 11U);
  EXPECT_EQ(g.ops, 10U);
  EXPECT_EQ(Count(g, EdgeKind::kHostOrder), 10);
  EXPECT_EQ(Count(g, EdgeKind::kLaunch), 10);
  EXPECT_EQ(Count(g, EdgeKind::kStreamOrder), 9);
  EXPECT_EQ(Count(g, EdgeKind::kSync), 0);  // the GPU was done before the call: it waited for nothing
  EXPECT_EQ(g.gaps.ops_without_launch, 0);
  const Replayed r = Replay(g);
  EXPECT_EQ(r.time, Recorded(g));
  EXPECT_EQ(r.cyclic, 0);
}

TEST(DependencyGraph, TheRecordingReplaysExactlyAndAnEditMovesWhatDependsOnIt) {
  LaunchBound run;
  const DependencyGraph g = BuildGraph(run.b.Events());
  // The critical path to the synchronization's end is the host's: its work and its launches.
  const Replayed r = Replay(g);
  const auto parts = Parts(WalkBack(g, r, EndOf(static_cast<uint32_t>(run.sync)), 0));
  // (the first call's 20 us before it have no call before them: the path starts there)
  EXPECT_EQ(parts[static_cast<size_t>(PathPart::kHost)], 9 * 20 * us + 20 * us);
  EXPECT_EQ(parts[static_cast<size_t>(PathPart::kLaunch)], 10 * 5 * us);
  EXPECT_EQ(parts[static_cast<size_t>(PathPart::kKernel)], 0);
  // Kernels twice as fast: nothing changes, they are off the path.
  std::vector<int64_t> duration = g.duration, gap = GapsOf(g);
  for (uint32_t op = 0; op < g.ops; ++op) duration[g.calls + op] /= 2;
  EXPECT_EQ(Replay(g, duration, gap).time[EndOf(static_cast<uint32_t>(run.sync))],
            g.recorded(EndOf(static_cast<uint32_t>(run.sync))));
  // No host work: the sync comes 9 * 20 us + 20 us earlier.
  duration = g.duration;
  for (size_t e = 0; e < g.edges.size(); ++e) {
    if (g.edges[e].kind == EdgeKind::kHostOrder) gap[e] = 0;
  }
  const Replayed edited = Replay(g, duration, gap);
  EXPECT_EQ(edited.time[EndOf(static_cast<uint32_t>(run.sync))],
            g.recorded(EndOf(static_cast<uint32_t>(run.sync))) - 200 * us);
}

// A GPU-bound stream: one thread launches long kernels quickly, then waits in a synchronize
// that returns 3 us after the last kernel ends.
TEST(DependencyGraph, ASynchronizeWaitsForTheLastKernelAndTheKernelsHoldThePath) {
  GraphRunBuilder b;
  const int64_t t = b.Thread(1, 1);
  for (int k = 0; k < 5; ++k)
    b.Launch(t, k * 10 * us, k * 10 * us + 5 * us, "gemm", 10 * us + k * 101 * us, 10 * us + k * 101 * us + 100 * us);
  const size_t last_end = 10 * us + 4 * 101 * us + 100 * us;
  const size_t sync = b.Call(t, "cudaStreamSynchronize_v3020", 60 * us, static_cast<int64_t>(last_end) + 3 * us);
  const DependencyGraph g = BuildGraph(b.Events());
  EXPECT_EQ(Count(g, EdgeKind::kSync), 1);
  EXPECT_EQ(g.duration[sync], 2 * us) << "no call of its function returned without waiting: 2 us of its own";
  const Replayed r = Replay(g);
  EXPECT_EQ(r.time, Recorded(g));
  const auto parts = Parts(WalkBack(g, r, EndOf(static_cast<uint32_t>(sync)), 0));
  EXPECT_EQ(parts[static_cast<size_t>(PathPart::kKernel)], 5 * 100 * us);
  EXPECT_EQ(parts[static_cast<size_t>(PathPart::kSync)], 3 * us);
  // Kernels at half their time: the sync returns 250 us sooner, less the stream gaps' slack.
  std::vector<int64_t> duration = g.duration;
  for (uint32_t op = 0; op < g.ops; ++op) duration[g.calls + op] /= 2;
  const Replayed half = Replay(g, duration, GapsOf(g));
  EXPECT_EQ(half.time[EndOf(static_cast<uint32_t>(sync))], g.recorded(EndOf(static_cast<uint32_t>(sync))) - 250 * us);
}

// A launch that took 300 us where its function's median is 5 us, returning 2 us after a
// kernel ended: the GPU's queue was full. The call is blocked by that kernel.
TEST(DependencyGraph, ALaunchHeldUpByTheGpuIsBlockedByTheKernelThatFreedIt) {
  GraphRunBuilder b;
  const int64_t t = b.Thread(1, 1);
  b.Launch(t, 0, 5 * us, "long", 10 * us, 310 * us);
  for (int k = 0; k < 4; ++k)
    b.Launch(t, (10 + k * 10) * us, (15 + k * 10) * us, "short", (310 + k) * us, (311 + k) * us);
  const size_t blocked = b.Call(t, "cudaLaunchKernel_v7000", 60 * us, 312 * us);  // returns 2 us after "long" ended
  b.Op(blocked, "short", 320 * us, 321 * us);
  const DependencyGraph g = BuildGraph(b.Events());
  EXPECT_EQ(Count(g, EdgeKind::kBlocked), 1);
  EXPECT_EQ(g.duration[blocked], 5 * us);
  EXPECT_EQ(Replay(g).time, Recorded(g));
}

// Another stream's kernel ends, and 1 us later this stream's kernel starts although it was
// launched 100 us before on an idle stream: a cross-stream wait.
TEST(DependencyGraph, AnOperationHeldUpByAnotherStreamWaitsForIt) {
  GraphRunBuilder b;
  const int64_t t = b.Thread(1, 1);
  b.Launch(t, 0, 5 * us, "producer", 10 * us, 200 * us, /*stream=*/13);
  b.Launch(t, 10 * us, 15 * us, "consumer", 201 * us, 250 * us, /*stream=*/7);
  const DependencyGraph g = BuildGraph(b.Events());
  EXPECT_EQ(Count(g, EdgeKind::kCrossStream), 1);
  EXPECT_EQ(Replay(g).time, Recorded(g));
  // The producer at half its time: the consumer starts 95 us sooner.
  std::vector<int64_t> duration = g.duration;
  duration[g.calls + 0] = 95 * us;
  const Replayed r = Replay(g, duration, GapsOf(g));
  EXPECT_EQ(r.time[StartOf(static_cast<uint32_t>(g.calls + 1))], 201 * us - 95 * us);
}

// Two ranks' all-reduce: rank 1 reaches it 50 us after rank 0, whose kernel waits for it. The
// path to rank 0's end runs through rank 1; at comm=0 neither waits.
TEST(DependencyGraph, ACollectiveEndsWhenTheLastRankArrives) {
  GraphRunBuilder b;
  const int64_t t0 = b.Thread(1, 1), t1 = b.Thread(2, 1);
  const std::string nccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  b.Launch(t0, 0, 5 * us, nccl, 10 * us, 90 * us);  // waits 50 us, transfers 30 us
  b.Launch(t1, 50 * us, 55 * us, nccl, 60 * us, 90 * us);
  const DependencyGraph g = BuildGraph(b.Events());
  EXPECT_EQ(Count(g, EdgeKind::kCollective), 2);
  EXPECT_EQ(g.gaps.unmatched_collectives, 0);
  const Replayed r = Replay(g);
  EXPECT_EQ(r.time, Recorded(g));
  const uint32_t rank0_kernel = static_cast<uint32_t>(g.calls + 0);
  const auto path = WalkBack(g, r, EndOf(rank0_kernel), 0);
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(g.lanes[g.lane[path.front().node]].global_pid, int64_t{2} << 24) << "the path starts on rank 1";
  // Rank 1's host 40 us earlier: rank 0's all-reduce ends 40 us sooner.
  std::vector<int64_t> gap = GapsOf(g);
  std::vector<int64_t> duration = g.duration;
  const size_t rank1_call = 1;
  // Move rank 1's call: it has no in-edge, so shift by editing its launch gap instead.
  for (size_t e = 0; e < g.edges.size(); ++e) {
    if (g.edges[e].kind == EdgeKind::kLaunch && NodeOf(g.edges[e].from) == rank1_call) gap[e] -= 40 * us;
  }
  EXPECT_EQ(Replay(g, duration, gap).time[EndOf(rank0_kernel)], 50 * us);
}

// Clocks apart: a kernel recorded before the call that launched it, whose stream successor
// was launched by a call that... any backward edge is counted, and the replay ends.
TEST(DependencyGraph, BackwardEdgesAreCountedAndTheReplayEnds) {
  GraphRunBuilder b;
  const int64_t t = b.Thread(1, 1);
  b.Launch(t, 100 * us, 105 * us, "early", 50 * us, 60 * us);  // starts before its launch
  b.Launch(t, 110 * us, 115 * us, "next", 120 * us, 130 * us);
  const DependencyGraph g = BuildGraph(b.Events());
  EXPECT_EQ(g.gaps.backward_edges, 1);
  const Replayed r = Replay(g);
  EXPECT_EQ(r.time, Recorded(g));
}

TEST(WhatIfEdits, EachFormParsesAndAWrongOneSaysTheForm) {
  auto k = ParseEdit("kernel:gemm@decode=0.5");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->target, EditTarget::kKernel);
  EXPECT_EQ(k->pattern, "gemm");
  EXPECT_EQ(k->scope, "decode");
  EXPECT_EQ(k->factor, 0.5);
  auto g = ParseEdit("graph@forward");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->target, EditTarget::kGraph);
  EXPECT_EQ(ParseEdit("host=0")->target, EditTarget::kHost);
  EXPECT_EQ(ParseEdit("launch@rank:1=0")->scope, "rank:1");
  const std::string form =
      "write WHAT[@SCOPE]=FACTOR, WHAT one of kernel:TEXT, family:NAME, copies, comm, host, launch, sync (e.g. "
      "kernel:gemm=0.5, host@decode=0, launch=0), or graph@STAGE";
  EXPECT_EQ(ParseEdit("kernel:gemm=-1").error().Line(),
            "kscope: error: what-if edit 'kernel:gemm=-1': the factor '-1' is not a number of 0 or more; " + form);
  EXPECT_EQ(ParseEdit("gpu=0").error().Line(),
            "kscope: error: what-if edit 'gpu=0': 'gpu' is not something kscope can change; " + form);
  EXPECT_EQ(ParseEdit("graph").error().Line(),
            "kscope: error: what-if edit 'graph': graph needs the stage whose instances become graphs (graph@STAGE); " +
                form);
  EXPECT_EQ(ParseEdit("sync=0.5").error().Line(),
            "kscope: error: what-if edit 'sync=0.5': sync takes =0 only (the host no longer waits); " + form);
}

TEST(WhatIfEdits, AnEditThatMatchesNothingSaysSo) {
  LaunchBound run;
  const DependencyGraph g = BuildGraph(run.b.Events());
  std::vector<int64_t> duration = g.duration, gap = GapsOf(g);
  auto m = ApplyEdit(g, {}, *ParseEdit("kernel:nvjet=0.5"), {}, duration, gap);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().Line(),
            "kscope: error: what-if edit 'kernel:nvjet=0.5' matches nothing in the run; check the kernel text or "
            "family (kscope kernels RUN), the stage (kscope report RUN) or the rank");
  auto scoped = ApplyEdit(g, {}, *ParseEdit("host@decode=0"), {}, duration, gap);
  ASSERT_FALSE(scoped.ok());
  EXPECT_EQ(scoped.error().Line(),
            "kscope: error: what-if edit 'host@decode=0': no stage named 'decode' in the run; the run has no NVTX "
            "stage: leave the scope out, or name a rank (rank:N)");
  auto small = ApplyEdit(g, {}, *ParseEdit("kernel:SMALL=0.5"), {}, duration, gap);  // any case
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->nodes, 10);
}

}  // namespace
}  // namespace kscope::analysis::graph
