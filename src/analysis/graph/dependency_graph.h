// A run's dependency graph: what each CUDA call and each GPU operation waited for, as typed
// edges, built once from the run's events (graph_events.h). The critical path
// (critical_path.h) and the what-if replay (replay.h) read the same graph.
//
// Nodes are the calls (each host thread's, in program order) and the GPU operations (each
// stream's, in order). A node has two points, its start and its end; an edge says that a point
// comes at least `gap` ns after another:
//
//   host order    a thread's call starts after the call before it ends; the gap is the host's
//                 own work between them (Python, the framework), which no CUDA call shows
//   nested        a call made inside another on its thread (a driver call under a runtime
//                 call) starts at its offset in it
//   launch        an operation starts after the call that launched it (same process and
//                 correlation id) started; the gap is the launch latency
//   stream order  an operation starts after the one before it on its stream ended
//   sync          a synchronizing call (cudaStreamSynchronize, a blocking cudaMemcpy...)
//                 returns after the GPU work it waited for ended
//   blocked       another call that took far longer than its function's median and returned
//                 just after an operation of its process ended (a launch with the GPU's queue
//                 full, a copy from pageable memory) returns after it
//   cross-stream  an operation held up well past its launch and its stream, that starts just
//                 after another stream's operation of its process ended, starts after it (the
//                 cudaStreamWaitEvent that nsys does not record with its event)
//   collective    a collective kernel (NCCL...) of a job's rank ends once the last rank's
//                 matching kernel started, plus the transfer
//   thread wake   a thread's call after it was idle (a host gap of 200 us or more) that
//                 starts at most 1 ms after another thread of its process ended a call or
//                 opened or closed an NVTX range starts after that thread's last call (PyTorch's
//                 autograd thread woken by backward(), the main thread by the end of the
//                 backward pass); the host-order gap before it is then the thread's waiting
//
// Each node's end also comes its own duration after its start (for a call that waited, its
// function's own work: the 10th percentile of its calls for a synchronizing one, the median
// for a blocked one).
//
// Latencies: the edge that held a point up in the recording (the one whose source, plus the
// kind's typical latency, comes last) carries the gap that was measured; every other edge
// carries its kind's typical latency (a launch: the 10th percentile of its function's launch
// gaps; stream order: the median gap between operations that waited for the stream on their
// device), never more than the measured gap. So the recording replays exactly, and an edit
// moves each point by what its dependencies allow.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/graph/graph_events.h"

namespace kscope::analysis::graph {

enum class EdgeKind : uint8_t {
  kDuration,  // a node's start to its end (implicit: not stored among the edges)
  kHostOrder,
  kNested,
  kLaunch,
  kStreamOrder,
  kSync,
  kBlocked,
  kCrossStream,
  kCollective,
  kThreadWake,
};
inline constexpr size_t kEdgeKinds = 10;
std::string_view EdgeKindName(EdgeKind kind);  // "host order", "launch", ...

inline constexpr uint32_t kNoLauncher = 0xFFFFFFFF;

// Points: 2 * node is its start, 2 * node + 1 its end.
inline uint32_t StartOf(uint32_t node) { return 2 * node; }
inline uint32_t EndOf(uint32_t node) { return 2 * node + 1; }
inline uint32_t NodeOf(uint32_t point) { return point / 2; }
inline bool IsEnd(uint32_t point) { return (point & 1U) != 0; }

struct Edge {
  uint32_t from = 0;  // a point
  uint32_t to = 0;    // a point
  EdgeKind kind = EdgeKind::kHostOrder;
  int64_t gap = 0;  // ns `to` comes after `from` at the least
};

// A host thread or a GPU stream.
struct Lane {
  bool host = true;
  int64_t global_pid = 0;            // the process (nsys's global id: host bits and pid)
  int64_t global_tid = 0;            // a host lane's thread
  int64_t device = -1, stream = -1;  // a GPU lane's
};

// What the graph could not learn from the capture, and what it dropped.
struct GraphGaps {
  int64_t ops_without_launch = 0;       // GPU operations whose launching call is not in the capture
  int64_t processes_without_calls = 0;  // processes with GPU work and no CUDA call at all
  int64_t backward_edges = 0;           // edges whose source was recorded after their target (clock skew)
  int64_t unmatched_collectives = 0;    // collective kernels left out of the cross-rank matching
};

struct DependencyGraph {
  GraphEvents events;  // nodes [0, calls) are events.calls, [calls, calls + ops) events.ops
  size_t calls = 0, ops = 0;
  std::vector<uint32_t> lane;  // per node
  std::vector<Lane> lanes;
  std::vector<std::vector<uint32_t>> lane_nodes;  // per lane: its nodes by start (a call before those inside it)
  std::vector<uint8_t> nested;                    // per call: made inside another call on its thread
  std::vector<uint8_t> launches;                  // per call: launched GPU work
  std::vector<uint32_t> launcher;                 // per operation: the call that launched it, or kNoLauncher
  std::vector<uint8_t> communication;  // per operation: a communication kernel (analysis/names/communication.h)
  std::vector<int64_t> duration;       // per node: its end after its start when nothing holds it longer
  std::vector<Edge> edges;             // by target point
  std::vector<uint32_t> in_begin;      // per point + 1: its in-edges are edges[in_begin[p], in_begin[p + 1])
  std::vector<uint32_t> out_begin;     // per point + 1: out_edges[out_begin[p], out_begin[p + 1]) index edges
  std::vector<uint32_t> out_edges;
  std::vector<int64_t> edges_by_kind = std::vector<int64_t>(kEdgeKinds, 0);
  GraphGaps gaps;

  [[nodiscard]] size_t nodes() const { return calls + ops; }
  [[nodiscard]] size_t points() const { return 2 * nodes(); }
  [[nodiscard]] bool is_call(uint32_t node) const { return node < calls; }
  [[nodiscard]] size_t op(uint32_t node) const { return node - calls; }  // index into events.ops
  // The point's time as recorded.
  [[nodiscard]] int64_t recorded(uint32_t point) const;
};

// Builds the graph of `events` (moved into it).
DependencyGraph BuildGraph(GraphEvents events);

}  // namespace kscope::analysis::graph
