// The figures of one profiled launch that the many-run views (kscope atlas) aggregate, derived
// from its metrics once, when its ncu results are imported, and kept in ncu_launch_figures:
// the atlas then reads one short row per launch instead of its hundreds of metric rows.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/kernels/bottleneck.h"
#include "analysis/timeline/run_timeline.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

struct LaunchFigures {
  // What the bottleneck class rests on (Classify): duration, SM, memory and DRAM throughput, L2
  // hit rate, waves per SM. The class itself depends on the configured thresholds, so it is
  // decided from these when read, not stored.
  ClassFigures class_figures;
  std::optional<double> l1_hit_pct, achieved_occupancy_pct, theoretical_occupancy_pct;
  std::string occupancy_limiter;                  // Evidence's: "registers", "shared memory", ...; "" when unknown
  std::string top_stall;                          // the largest stall reason; "" without stall metrics
  std::optional<double> registers, shared_bytes;  // launch__registers_per_thread, launch__shared_mem_per_block
  std::optional<double> tensor_pipe_pct;          // sm__pipe_tensor_cycles_active (active, else elapsed)
  // Where the launch sits on the roofline (MainPoint): its precision, % of roof and side;
  // empty / nullopt when it did no FP work or lacks the roofline's metrics.
  std::string roof_precision;
  std::optional<double> roof_pct;
  std::optional<bool> roof_memory_bound;
  friend bool operator==(const LaunchFigures&, const LaunchFigures&) = default;
};

// The same evidence and roofline code `kscope kernels` shows (GatherEvidence, ComputeRoofline).
LaunchFigures FiguresOf(const NcuLaunch& launch);

// Launches' figures as (launch id, figures), in launch order.
using DerivedLaunchFigures = std::vector<std::pair<int64_t, LaunchFigures>>;

// Derives the figures of every profiled launch of the run from its stored metrics and
// replaces the run's rows of ncu_launch_figures: called by the derivation after every import
// of ncu results (import/derive_run.h), once the run's launches, metrics and links are
// written, inside the import's transaction. With `derived`, the figures of every launch of
// the run already derived from the same metrics (LaunchFiguresBuilder), they are written as
// given. The launches' shapes read their kernels' timelines from `timelines`.
Status MaterializeLaunchFigures(store::Store& store, int64_t run_id, RunTimelines& timelines,
                                const DerivedLaunchFigures* derived = nullptr);
// The same for a run alone (a store upgrade, a benchmark's copies), its timelines read for it.
Status MaterializeLaunchFigures(store::Store& store, int64_t run_id);

// A profiled launch as ncu_launch_figures and ncu_launch keep it.
struct StoredLaunch {
  int64_t launch_id = 0;
  int64_t name_id = 0;  // ncu's kernel name, an id into the string table
  std::array<int64_t, 3> grid{}, block{};
  LaunchFigures figures;
  std::string shape;              // the launching PyTorch op and its input shapes (launch_shapes.h); "" when unknown
  std::optional<int64_t> device;  // the GPU ncu profiled it on
};

// Reads runs' stored launches, one run at a time, in launch-id order.
class StoredLaunchReader {
 public:
  static Result<StoredLaunchReader> Open(store::Store& store);
  Status ForEach(int64_t run_id, const std::function<void(const StoredLaunch&)>& fn);

 private:
  explicit StoredLaunchReader(sql::Stmt q) : q_(std::move(q)) {}
  sql::Stmt q_;
};

}  // namespace kscope::analysis
