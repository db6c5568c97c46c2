// The figures of a multi-GPU job per rank (each process that launched kernels, run_rank): its
// kernel time split into compute and communication (rank_kernels.h), the communication its
// compute does not hide, its collectives by kind, its steady step time per top-level NVTX stage;
// and the straggler, the rank the others wait for at their collectives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/stages/stages.h"
#include "analysis/timeline/collective_bytes.h"
#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/ranks.h"

namespace kscope::analysis {

// A top-level stage as one rank ran it: the instances its process opened, and the median wall
// time (start to the end of the last work launched inside) of those after its warm-up, by the
// stages' own rule (SteadyState's `counted`: the process's first stages.warmup instances).
struct RankStageTime {
  std::string stage;  // DisplayName
  int64_t instances = 0, steady = 0;
  double median_wall_ns = 0;
};

struct RankCollective {
  std::string kind;  // CollectiveKindName: "AllReduce", "AllGather", ...
  int64_t count = 0, ns = 0;
  // The message bytes of those of them whose capture gave a size (CollectiveBytes), and how
  // many those are; nullopt when none did (an nsys capture).
  std::optional<int64_t> bytes;
  int64_t sized = 0;
};

struct RankFigures {
  RunRank rank;
  int64_t kernels = 0, kernel_ns = 0;
  int64_t compute_ns = 0;        // kernels that are not communication
  int64_t communication_ns = 0;  // communication kernels (their time includes waiting for peers)
  // Communication time on the rank's GPU that none of its compute kernels overlaps: the union
  // of its communication kernels' intervals less the union of its compute kernels'.
  int64_t exposed_communication_ns = 0;
  // What its collectives waited for the last peer to arrive, estimated from start skew: over
  // the collectives matched across ranks (the i-th of each kind on every rank), the latest
  // start less its own.
  int64_t collective_wait_ns = 0;
  std::vector<RankStageTime> stages;        // top-level stages, as `stages` orders them
  std::vector<RankCollective> collectives;  // by kind, in CollectiveKind order
};

// The rank that arrives last at the collectives: the one whose matched collectives wait least.
// Chosen, with its lag and extra compute per step, over the collectives every rank launched in a
// steady instance of the step (after each rank's own warm-up instances) when there are any: the
// first steps hold NCCL's set-up and their collectives wait far longer than a step lasts.
struct Straggler {
  int64_t rank = 0;
  int64_t matched = 0;         // collectives matched on every rank
  int64_t matched_steady = 0;  // ... of which every rank launched inside a steady step
  // The others' mean collective wait less the straggler's, over every matched collective: how
  // much later it arrives in all.
  int64_t late_ns = 0;
  std::string step_stage;  // the top-level stage with the most time ("" when none)
  int64_t steps = 0;       // the straggler's steady instances of it (all of them without matched_steady)
  // How much later it arrives per step: over the steady steps' collectives (with matched_steady),
  // else late_ns / steps; 0 when no stage.
  double late_per_step_ns = 0;
  // How much more compute kernel time the straggler has than the others' mean, per step (or in
  // all): in the steady steps with matched_steady.
  double extra_compute_per_step_ns = 0;
  std::string advice;  // one line that fits what was measured
  // What overlap would gain, from the straggler's exposed communication (its collectives wait
  // least, so its exposed time is transfer, not waiting): bucket size, overlap of gradient
  // reduction with backward, fewer or larger collectives; "" when it has no communication.
  std::string overlap_advice;
};

struct RankAnalysis {
  std::vector<RankFigures> ranks;
  std::optional<Straggler> straggler;  // with at least two ranks and matched collectives
};

// `names`: the kernel names (string ids of events.kernels.name); `stages`: ComputeStages of
// the run; `warmup`: stage instances left out at the start of each rank (stages.warmup);
// `bytes`: the run's collective message sizes by kernel row (LoadCollectiveBytes).
RankAnalysis AnalyzeRanks(const NsysEvents& events, const std::vector<RunRank>& ranks,
                          const std::unordered_map<int64_t, std::string>& names, const std::vector<Stage>& stages,
                          int64_t warmup, const CollectiveBytes& bytes = {});

}  // namespace kscope::analysis
