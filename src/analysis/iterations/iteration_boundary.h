// What marks where a loop's iterations start (analysis/iterations/iterations.h), from what the
// trace holds beside the kernel names: the host's synchronizations, and the GPU's idle gaps
// before each kernel of the repeated sequence.
//
// Definitions:
// - A synchronization's place: the number of kernels (in start order) that started before the
//   synchronizing call returned (cudaDeviceSynchronize, cudaStreamSynchronize,
//   cudaEventSynchronize, blocking copies: names/api_names.h SynchronizesHost), so that it sits
//   between two kernels of the sequence.
// - Synchronizations recur with a cadence when, inside the loop, at least kMinSyncs of them
//   fall at one place of the repeated sequence (its phase) every `every` repeats, with no other
//   interval between them: the host waits for the GPU once per `every` repeats, at the end of
//   the unit it loops over (a step, a pass, a request).
// - The idle gap before a place of the sequence is its median over the repeats; the gap before
//   the iteration's first kernel stands out when it is at least kStandoutGapRatio times the
//   longest gap before any other kernel of the sequence. The host's own work between modules
//   makes the gap before each layer of an eager model a few times those inside it (3.3 and 4.3
//   on two recordings of zoo/models/no_nvtx_infer.py, where the repeat is the layer; 2.0 on
//   no_nvtx_train.py's steps), so a few times is no evidence; the devset's Llama decode steps,
//   where the host samples each token, show 154.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/iterations/sequence_repeats.h"

namespace kscope::analysis {

inline constexpr size_t kMinSyncs = 3;
inline constexpr double kStandoutGapRatio = 10;

// The median idle gap before each place of the run's period (index: the place), over its repeats.
// `gaps`: the idle gap before each kernel of the sequence.
std::vector<int64_t> PhaseGaps(const Run& run, const std::vector<int64_t>& gaps);

// The place of the period whose kernel follows the longest median idle gap (the first of equals).
size_t BestPhase(const Run& run, const std::vector<int64_t>& gaps);

// The median gap before the run's first kernel over the longest median gap before any other
// kernel of its period; 0 for a period of one kernel or no gap before the first.
double BoundaryGapRatio(const Run& run, const std::vector<int64_t>& gaps);

// Each synchronization's place in the sequence (`starts`: the kernels' starts in start order;
// `sync_end`: when each synchronizing call returned), ascending, each place once.
std::vector<size_t> SyncPlaces(const std::vector<int64_t>& starts, const std::vector<int64_t>& sync_end);

// Synchronizations at place `phase` of the period, every `every` repeats of the run, `count`
// of them from its repeat `first_repeat`.
struct SyncCadence {
  size_t phase = 0, every = 0, first_repeat = 0, count = 0;
  // The place in the sequence of the first of them.
  [[nodiscard]] size_t Start(const Run& run) const { return run.first + first_repeat * run.period + phase; }
};

// The cadence of the phase that holds most of the synchronizations inside the run (from its
// first kernel to just after its last), when they recur with one interval, at least kMinSyncs.
std::optional<SyncCadence> FindSyncCadence(const std::vector<size_t>& places, const Run& run);

}  // namespace kscope::analysis
