// The ncu half of kscope's reports: `kscope kernels` (profiled kernels by GPU time with
// family, library, bottleneck class, roofline position, occupancy and top stall) and
// `kscope kernel` (one kernel with all its evidence and advice).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/kernels/bottleneck.h"
#include "report/table.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::report {

// How a kernel listing names its kernels: the short name alone in its Kernel column
// (analysis/names/short_names.h: unique within the listing, one per kernel whatever its
// shapes), or also the full name in a last column, Name (kscope kernels --full-names; CSV and
// JSON always).
enum class KernelNames { kShort, kShortAndFull };

// `rank`: the launches ncu profiled on that rank's GPU alone (kscope kernels --rank N).
Result<Table> KernelsTable(store::Store& store, int64_t run_id, const analysis::ClassifyThresholds& thresholds,
                           std::optional<int64_t> rank = std::nullopt, KernelNames names = KernelNames::kShort);

// `which` is a kernel's row number in KernelsTable (its ID column, of the same `rank`), its short
// name there, or a substring of its full name; a substring matching several kernels is an error.
// `rank`: among the launches ncu profiled on that rank's GPU alone (kscope kernel --rank N).
Result<std::vector<Table>> KernelDetailTables(store::Store& store, int64_t run_id, const std::string& which,
                                              const analysis::ClassifyThresholds& thresholds,
                                              std::optional<int64_t> rank = std::nullopt);

}  // namespace kscope::report
