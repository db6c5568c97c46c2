// One run as a trace that ui.perfetto.dev and chrome://tracing open (the Chrome Trace Event
// Format, report/chrome_trace_writer.h), written event by event (docs/perfetto.md):
//
// - each process of the run (each rank of a job) as a process: its threads with their CUDA
//   calls (named as nsys's cuda_api_sum names them) and the NVTX ranges they opened, nested;
// - each GPU stream as a thread "stream N" of a process "GPU <device>" (one per process and
//   device): its kernels (short name; full name, grid, block and duration as arguments) and
//   copies and sets;
// - a flow arrow from each launching call to the operation it launched (same process and
//   correlation id), for the first `max_launch_flows` operations in time order;
// - a process "kscope analysis" with kscope's own view of the run: the run's phases (as the
//   report splits it), the iterations of its loop, each NVTX stage's instances (steady or
//   warm-up), and the critical path of one steady step (the median step of the first step set
//   kscope whatif answers for: the stage with the most time, else the iterations), its pieces
//   as slices and as a chain of flow arrows through the calls and operations they ran through.
//
// Times are the store's ns, written as microseconds with three decimals (exact).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/options.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::report {

// Arrows are capped so that the file stays usable: a browser draws a few tens of thousands
// well, hundreds of thousands slowly or not at all.
struct PerfettoOptions {
  size_t max_launch_flows = 20000;  // launch arrows drawn, for the earliest operations
  size_t max_path_flows = 20000;    // critical path arrows drawn, from the step's start
};

// The critical path drawn, as the analysis answers for it.
struct DrawnPath {
  std::string step_set;            // the stage's display name, or "iteration"
  int64_t step = 0;                // which step of the set (from 1)
  int64_t steps = 0;               // steps in the set
  int64_t start = 0, end = 0;      // the step, replayed (the recording's times)
  int64_t path_ns = 0;             // the pieces' time: the step's, unless the path stops short
  int64_t pieces = 0, arrows = 0;  // slices on the track, flow arrows between the nodes
  int64_t arrows_left_out = 0;     // hops past PerfettoOptions::max_path_flows, without an arrow
};

struct PerfettoSummary {
  int64_t events = 0, bytes = 0;
  int64_t calls = 0, nvtx_ranges = 0, kernels = 0, memops = 0;
  int64_t launch_flows = 0, launches_left_out = 0;  // arrows drawn; operations with a launch not drawn
  std::optional<DrawnPath> critical_path;
  std::vector<std::string> notes;  // what the file leaves out, and why
};

// Writes run `run_id` of `store` to `path` (whole or not at all). `config`: the analyses'
// options (stages.warmup, timeline.min_gap_us), as `kscope report` takes them.
Result<PerfettoSummary> WritePerfettoTrace(store::Store& store, int64_t run_id, const std::filesystem::path& path,
                                           const analysis::AnalysisOptions& config,
                                           const PerfettoOptions& options = {});

}  // namespace kscope::report
