// CUDA calls that repeat an earlier call's correlation id in their process. CUPTI gives each
// call its own, so only a broken, merged or hostile file has them: their GPU operations are
// linked to the first such call alone (analysis::LaunchClaims), the repeats are counted in
// import_problem, and a file with more than kMaxSharedCorrelations of them is refused.
#pragma once

#include <cstdint>
#include <string>

#include "import/importer.h"
#include "util/status.h"

namespace kscope::import {

inline constexpr int64_t kMaxSharedCorrelations = 10'000;

// Records `repeats` (when any) as one import_problem row of `target`'s file; an error past
// the bound, naming `fix` (how to get a good file of this format).
Status CheckSharedCorrelations(const std::string& path, const ImportTarget& target, int64_t repeats,
                               const std::string& fix);

}  // namespace kscope::import
