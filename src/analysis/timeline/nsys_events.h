// What the nsys summaries need of a run's events, column by column. The importer fills it
// while it streams an export (so the summaries need no second pass over the data), and
// LoadNsysEvents fills it from a stored run.
#pragma once

#include <cstdint>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

struct NsysEvents {
  struct Kernels {  // GPU kernels
    std::vector<int64_t> start, end, correlation, global_pid, name;
  } kernels;
  struct Memops {  // GPU memory copies and sets
    std::vector<int64_t> start, end, correlation, global_pid, operation, bytes;
  } memops;
  struct Api {  // CUDA API calls
    std::vector<int64_t> start, end, global_tid, correlation, name;
  } api;
  struct Nvtx {  // NVTX ranges (store::nvtx columns; NULL as store::kNull)
    std::vector<int64_t> start, end, event_type, domain, text, global_tid, end_global_tid, parent, depth;
  } nvtx;
};

Result<NsysEvents> LoadNsysEvents(store::Store& store, int64_t run_id);

}  // namespace kscope::analysis
