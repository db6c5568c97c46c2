// Launches and time per kernel name, as nsys's cuda_gpu_kern_sum lists them: a run's from its
// stored kernel_summary, or a rank's from its own kernels (analysis/timeline/rank_selection.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/timeline/rank_selection.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

struct KernelTotal {
  int64_t name_id = 0;  // demangled name (string id)
  std::string name;
  int64_t n = 0, total = 0;
  double mean = 0;
};

// In nsys's order: time, largest first, then launches, then name. `rank`: that rank's kernels
// only; null: the run's stored summary.
Result<std::vector<KernelTotal>> KernelTotals(store::Store& store, int64_t run_id, const RankSelection* rank = nullptr);

// The rank numbered `rank` of the run with its share of the run's events (ReadRanks, FindRank,
// LoadNsysEvents, SelectRank).
Result<RankSelection> LoadRank(store::Store& store, int64_t run_id, int64_t rank);

}  // namespace kscope::analysis
