// Whether ncu results belong to the run they are added to: when the run has nsys kernels and
// not one of the launches a call brought matches one of them (kernel name, grid and block,
// NVTX range: analysis/kernels/ncu_timeline_link.h), the page is from another program or
// run, and its numbers would be reported as this run's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::import {

struct NcuFileOfRun {
  std::string path;
  int64_t source_id = 0;
};

// Fails, naming the first of `files`, when the launches they brought into `run_id` (already
// linked) match none of its nsys kernels; passes when the run has no nsys kernels.
Status CheckNcuBelongsToRun(store::Store& store, int64_t run_id, const std::vector<NcuFileOfRun>& files);

}  // namespace kscope::import
