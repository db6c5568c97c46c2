// The steps of SelectKernels (capture/selection.h), in the order it runs them:
//   scope  which launches count (the rank of a job, the NVTX stage, exclusions, the warm-up);
//   rank   the kernels in scope by steady GPU time (or the ones a target names);
//   group  each kernel's launches by launch configuration, what ncu's skip and count pick in
//          each, and which configurations of a growing shape are sampled;
//   cover  the ranked kernels, in order, until the coverage target or the cap;
//   budget of those, as many as the estimated ncu time allows;
//   split  the picks into ncu runs.
// Internal to capture/; the tests call SelectKernels.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/timeline/nsys_events.h"
#include "capture/options.h"
#include "capture/selection.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::capture::steps {

// What the discovery run holds that the steps read.
struct RunColumns {
  analysis::NsysEvents events;
  std::vector<int64_t> mangled, device;      // per kernel row
  std::array<std::vector<int64_t>, 7> dims;  // grid xyz, block xyz, dynamic shared memory
  std::unordered_map<int64_t, std::string> strings;
  // The kernel's identity: its mangled name's string id, the demangled one's without it.
  int64_t Identity(int64_t row) const;
};
Result<RunColumns> LoadRun(store::Store& store, int64_t run_id);

// The launches in scope, each list in launch order (kernel stream rows).
struct Scope {
  std::vector<int64_t> order_time;  // per row: when it was launched (its call's start)
  std::vector<char> warm;           // per row: launched by a warm-up instance of a stage
  std::vector<int64_t> all;         // in scope, warm-up included
  std::vector<int64_t> steady;      // in scope, warm-up left out: what is ranked
  std::vector<int64_t> counted;     // what ncu counts its skip over
};
// Fills the selection's rank, stage, exclusion, communication and warm-up fields.
Result<Scope> ScopeLaunches(store::Store& store, int64_t run_id, const RunColumns& run, const SelectionOptions& cfg,
                            int64_t warmup_instances, int64_t ncu_rank, Selection& sel);

// The kernels of the steady launches, largest GPU time first (the targeted ones alone when
// selection.kernel names some). Fills sel.scope_ns, scope_kernels, warmup and launches.
Result<std::vector<SelectedKernel>> RankKernels(const RunColumns& run, const Scope& scope, const SelectionOptions& cfg,
                                                Selection& sel);

// Kernel identity, grid xyz, block xyz, dynamic shared memory (only the identity when
// selection.launch_scope is kernel).
using LaunchConfig = std::array<int64_t, 8>;

// A kernel's growing shape: its configurations that differ only in one dimension.
struct Growing {
  size_t dim = 0;                     // index into LaunchConfig (1: grid x ... 7: dynamic shared memory)
  std::set<LaunchConfig> family;      // the configurations of the growing dimension
  std::vector<LaunchConfig> samples;  // the representative sizes profiled, smallest first
};

struct Groups {
  // Per configuration: its launches in counting order; ncu profiles [warmup, warmup+launches).
  std::map<LaunchConfig, std::vector<int64_t>> rows;
  std::unordered_map<int64_t, int64_t> picks;  // per kernel identity: launches ncu will profile
  std::map<int64_t, Growing> growing;          // per kernel identity whose sizes are sampled
};
// Groups the ranked kernels' launches and sets each kernel's covered_ns.
Groups GroupConfigs(const RunColumns& run, const Scope& scope, const SelectionOptions& cfg, const Selection& sel,
                    std::vector<SelectedKernel>& ranked);

// selection_growing.cc: the growing shapes among the groups (selection.growing_*), each with
// its samples, where sampling costs less estimated ncu time than every size; sets the picks
// of those kernels.
void FindGrowingShapes(const SelectionOptions& cfg, const Selection& sel, Groups& groups);
std::string DimensionName(size_t dim);
LaunchConfig ConfigOfRow(const RunColumns& run, int64_t row);
// The ncu runs that profile the sampled sizes: one window per sample over the launches of
// every selected kernel with a growing shape; then what they measure, in the selection's
// coverage (deep_pct, represented_pct). Returns the launches the windows profile.
// With selection.growing_run=kernel-id, and no NVTX filter (ncu numbers a kernel's invocations
// over the whole program), one ncu run profiles every sample instead (selection_growing_run.cc).
int64_t AddGrowingWindows(const RunColumns& run, const Scope& scope, const Groups& groups, const SelectionOptions& cfg,
                          Selection& sel);
bool OneSampledRun(const SelectionOptions& cfg, const Selection& sel);
// The ncu run of every sampled size, picked by invocation numbers; the launches it profiles.
int64_t AddInvocationRun(const RunColumns& run, const Scope& scope, const Groups& groups,
                         const std::vector<size_t>& sampled, Selection& sel);

// The ranked kernels the coverage target and the cap let in, in rank order; the last kernel the
// target needs is the one that reaches it with the fewest launches to profile.
struct Cover {
  std::vector<size_t> visited;  // indexes into the ranking, rare ones (no picks) included
  std::string limited_by;       // coverage, top or kernels
};
Cover CoverKernels(const std::vector<SelectedKernel>& ranked, const RunColumns& run, const Groups& groups,
                   const SelectionOptions& cfg, int64_t scope_ns);

// Moves into sel.kernels the covered kernels the budget allows, with their shares.
void ApplyBudget(std::vector<SelectedKernel>& ranked, const Cover& cover, const Groups& groups, const RunColumns& run,
                 const SelectionOptions& cfg, Selection& sel);

// Each selected kernel's picks, and the ncu runs that profile them.
Status SplitPasses(const RunColumns& run, const Scope& scope, const Groups& groups, const SelectionOptions& cfg,
                   Selection& sel);

}  // namespace kscope::capture::steps
