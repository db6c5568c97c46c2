// `kscope kernels RUN --all`: every kernel of a run from nsys (GPU time, launches, short name,
// family, library), in the order of nsys's cuda_gpu_kern_sum, with ncu's class, occupancy and top
// stall where the kernel was profiled.
#pragma once

#include <cstdint>
#include <optional>

#include "analysis/kernels/bottleneck.h"
#include "report/kernel_reports.h"
#include "report/table.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::report {

// `rank`: that rank's kernels alone (kscope kernels --all --rank N). `names`: as KernelsTable's.
Result<Table> AllKernelsTable(store::Store& store, int64_t run_id, const analysis::ClassifyThresholds& thresholds,
                              std::optional<int64_t> rank = std::nullopt, KernelNames names = KernelNames::kShort);

}  // namespace kscope::report
