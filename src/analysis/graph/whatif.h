// What a change would make of a run's steps: the run's dependency graph (dependency_graph.h)
// replayed as recorded and with edits (edits.h), per step set (steps.h: the steady instances
// of each NVTX stage that repeats, and the iterations of the run's loop), with the critical
// path's time by what it runs through, before and after, and each kernel's time on the path
// beside its GPU time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/graph/critical_path.h"
#include "analysis/graph/dependency_graph.h"
#include "analysis/graph/edits.h"
#include "analysis/graph/replay.h"
#include "analysis/graph/steps.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis::graph {

struct WhatIfOptions {
  int64_t warmup = 1;       // each stage's instances left out at the start (stages.warmup)
  size_t top_kernels = 10;  // kernels listed per step set, by time on the critical path
  // The step set to calibrate on (a stage's name, or "iteration"); empty: the primary one
  // (PrimaryStepSet).
  std::string steps;
  // A step's median as measured without a profiler: the host's time (its work between calls
  // and the calls' own time) is scaled so that the replay of `steps` takes this long, before
  // the edits (tracing slows the host, never the GPU's kernels).
  std::optional<double> measured_step_ns;
};

// ns per step, by what the critical path runs through (PathPart).
using PartTimes = std::array<double, kPathParts>;

struct KernelOnPath {
  std::string name;
  double gpu_ns = 0;   // per step: its GPU time in the step (every launch's overlap with it, on every rank)
  double path_ns = 0;  // per step: the part of that on the critical path
  int64_t launches = 0;
};

// The step set a user means by "a step": the outermost repeating stage (its steps run from
// one start to the next), else the run's iterations, else the first there is; null for none.
const StepSet* PrimaryStepSet(const std::vector<StepSet>& sets);

// The step of `set` whose recorded length is the median (the lower middle one of an even
// count): its index in set.steps. `set` has steps.
size_t MedianStepIndex(const DependencyGraph& g, const StepSet& set);

// One step's critical path, to draw: the pieces of the recording's replay, cut to the step.
struct StepPath {
  const StepSet* set = nullptr;
  size_t step = 0;                  // index into set->steps
  int64_t start = 0, end = 0;       // the step, as recorded (the unedited replay's times)
  std::vector<PathSegment> pieces;  // in time order, each inside [start, end)
};

// One rank's part of the critical path of a job's step: ns per typical step by part.
struct RankOnPath {
  int64_t rank = 0;
  PartTimes parts{};
};

struct StepAnswer {
  std::string name;  // the stage's display name, or "iteration"
  std::string how;   // what marks the steps
  StepSource source = StepSource::kStage;
  int64_t steps = 0;
  double recorded_ns = 0;       // median step as recorded
  double replayed_ns = 0;       // median step of the unedited replay
  double predicted_ns = 0;      // median step with the edits
  double replay_error_pct = 0;  // (replayed - recorded) / recorded
  // The typical steps (within half and twice the median): their count, mean step, and mean
  // critical path per step, as recorded and edited; the kernels on their recorded path.
  int64_t typical_steps = 0;
  double typical_recorded_ns = 0, typical_predicted_ns = 0;
  PartTimes before{}, after{};
  std::vector<KernelOnPath> kernels;  // per typical step, by time on the recorded path, largest first
  std::vector<RankOnPath> ranks;      // a job of several ranks: each rank's part of the recorded path
};

struct EditMatch {
  std::string edit;
  int64_t nodes = 0, edges = 0;  // what it changed
};

struct WhatIfAnswer {
  int64_t run_id = 0;
  std::string primary;                     // the step set a user means by "a step" (PrimaryStepSet)
  std::optional<double> host_scale;        // with measured_step_ns: the factor on the host's time
  std::optional<double> calibrated_to_ns;  // ... and the measured step it was fitted to
  std::vector<EditMatch> edits;
  size_t calls = 0, ops = 0;
  std::vector<int64_t> edges_by_kind;  // EdgeKind order
  GraphGaps gaps;
  int64_t cyclic = 0;              // points the replay placed out of order
  std::vector<StepAnswer> steps;   // one per step set; stages by total time, then iterations
  std::vector<std::string> notes;  // what the capture lacks, and what adds it
};

// A run's graph, step sets and recorded replay, built once, that answers any number of edits
// (the report prices each finding's fix with one).
class WhatIfSession {
 public:
  static Result<WhatIfSession> Open(store::Store& store, int64_t run_id, const WhatIfOptions& options);
  // The answer for `edits` (none: the recording and its critical path).
  [[nodiscard]] Result<WhatIfAnswer> Answer(const std::vector<Edit>& edits) const;
  [[nodiscard]] const std::vector<StepSet>& sets() const { return sets_; }
  [[nodiscard]] const StepSet* primary() const { return primary_; }
  [[nodiscard]] const DependencyGraph& graph() const { return *g_; }
  // Each rank's process (nsys's global id), by rank; empty for a run of one process.
  [[nodiscard]] const std::vector<int64_t>& rank_pids() const { return rank_pid_; }
  // The primary set's median step as the baseline replays it and with `edits` (ns): Answer's
  // replayed_ns and predicted_ns for that set, without the critical paths (one replay).
  [[nodiscard]] Result<std::pair<double, double>> PrimaryMedians(const std::vector<Edit>& edits) const;
  // The critical path of the primary set's median step (MedianStepIndex) on the recording's
  // replay; none without steps.
  [[nodiscard]] std::optional<StepPath> MedianStepPath() const;

 private:
  int64_t run_id_ = 0;
  WhatIfOptions options_;
  std::unique_ptr<DependencyGraph> g_;
  std::vector<StepSet> sets_;
  const StepSet* primary_ = nullptr;  // into sets_ (a vector not resized after Open)
  std::vector<int64_t> rank_pid_;
  std::vector<int64_t> duration_, gap_;  // the baseline's (the host scaled to a measured step)
  std::optional<double> host_scale_;
  std::unique_ptr<Replayed> unscaled_, baseline_;
};

// The answer for `edits` (none: the recording and its critical path).
Result<WhatIfAnswer> AnswerWhatIf(store::Store& store, int64_t run_id, const std::vector<Edit>& edits,
                                  const WhatIfOptions& options);

// The step sets of a run (whatif_steps.cc): each stage of the user's (those of three instances
// or more, with two steady periods or more, with their steps; the others as scopes for edits
// only, without), then the iterations of its loop where one is found.
Result<std::vector<StepSet>> FindStepSets(store::Store& store, int64_t run_id, const DependencyGraph& g,
                                          int64_t warmup);

// The durations and gaps of `g` with `edit` applied on top of `duration` and `gap`
// (whatif_apply.cc); `rank_pid`: each rank's process. An error when it changes nothing.
Result<EditMatch> ApplyEdit(const DependencyGraph& g, const std::vector<StepSet>& sets, const Edit& edit,
                            const std::vector<int64_t>& rank_pid, std::vector<int64_t>& duration,
                            std::vector<int64_t>& gap);

}  // namespace kscope::analysis::graph
