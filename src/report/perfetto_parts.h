// What the parts of the Perfetto trace (report/perfetto_trace.h) share: the run's events and
// dependency graph, where each thread and stream is drawn, and the flow arrows gathered for the
// end of the file. perfetto_layout.cc places the tracks, perfetto_trace.cc draws the events,
// perfetto_analysis.cc the phases, iterations and stages, perfetto_critical_path.cc the path.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "analysis/graph/dependency_graph.h"
#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/ranks.h"
#include "report/chrome_trace_writer.h"
#include "report/perfetto_trace.h"

namespace kscope::report::perfetto {

inline constexpr int64_t kThreadBits = 0xFFFFFF;  // nsys's global thread id: the process's, then the thread's
inline int64_t ProcessOf(int64_t global_tid) { return global_tid & ~kThreadBits; }

// One end of a flow arrow: a slice's start on its track (the arrow binds to that slice).
struct FlowPoint {
  TraceTrack track;
  int64_t at = 0;
};

// An arrow from `from` to `to`; written at the end of the file, from whichever starts first.
struct Flow {
  std::string_view cat;  // "launch", "critical path"
  FlowPoint from, to;
};

using StreamKey = std::tuple<int64_t, int64_t, int64_t>;  // global pid, device, stream

// Where the run is drawn: a pid per process and per process and GPU, a tid per thread, stream
// and analysis track, each unique in the file.
struct TraceLayout {
  std::unordered_map<int64_t, TraceTrack> thread;  // by nsys global thread id
  std::map<StreamKey, TraceTrack> stream;
  std::map<int64_t, analysis::RunRank> rank;            // by global pid: the run's ranks
  std::unordered_map<int64_t, std::string> track_name;  // by tid
  int64_t analysis_pid = 0;                             // the process holding kscope's own tracks
  int64_t next_tid = 0;                                 // the next tid for a track of the analysis
  int64_t next_sort = 0;                                // the next thread_sort_index of one
};

// The run as the trace's parts read it.
struct TraceRun {
  int64_t run_id = 0;
  const analysis::graph::DependencyGraph& graph;  // its events: calls and operations
  const analysis::NsysEvents& nsys;               // its NVTX ranges (and the analyses' input)
  std::vector<std::string> op_names;              // per operation name id: its slice's name (SliceNames)
  TraceLayout layout;

  // The slice of a graph node (a call or an operation): its track and start.
  [[nodiscard]] FlowPoint SliceOf(uint32_t node) const;
  // A graph node's name as its slice shows it.
  [[nodiscard]] std::string NodeName(uint32_t node) const;
  // The name of a graph node's track ("python", "stream 7 (GPU 0)").
  [[nodiscard]] std::string TrackName(uint32_t node) const;
};

// Places every process, thread and stream of `run` and writes their names and order; the
// thread names are the store's.
Status PlaceTracks(store::Store& store, TraceRun& run, ChromeTraceWriter& out);

// A new track in the analysis process, named `name`, below the ones before it.
TraceTrack AnalysisTrack(TraceRun& run, ChromeTraceWriter& out, std::string_view name);

// Per operation name id (GraphEvents::op_names order): the name its slice shows.
std::vector<std::string> SliceNames(const analysis::graph::GraphEvents& events);

// The analysis process's tracks but the critical path: the run's phases, its loop's iterations,
// its NVTX stages' instances.
Status WriteAnalysisTracks(store::Store& store, TraceRun& run, const analysis::AnalysisOptions& config,
                           ChromeTraceWriter& out);

// The critical path of one steady step, as slices and as arrows added to `flows` (the first
// `max_arrows` along it); nothing when the run has no step set.
Result<std::optional<DrawnPath>> WriteCriticalPath(store::Store& store, TraceRun& run,
                                                   const analysis::AnalysisOptions& config, size_t max_arrows,
                                                   ChromeTraceWriter& out, std::vector<Flow>& flows);

}  // namespace kscope::report::perfetto
