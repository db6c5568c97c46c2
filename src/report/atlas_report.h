// `kscope atlas`: the atlas (analysis/atlas/atlas.h) as tables (terminal, CSV) and as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/atlas/atlas.h"
#include "report/table.h"

namespace kscope::report {

// Family (or kernel), library, models, runs, launches, GPU time, its share of all the selected
// runs' GPU time, then its share of each model's GPU time (the family x model matrix).
Table AtlasPopularityTable(const analysis::atlas::Atlas& atlas);

// Family (or kernel), library, models, runs, profiled launches, then per figure its median and
// interquartile range ("45.2 [30.1-60.3]", "of N" added when fewer launches had it), the
// bottleneck-class mix and the mix of the launches' top stall reasons.
Table AtlasPerformanceTable(const analysis::atlas::Atlas& atlas);

// The whole atlas; docs/atlas.md describes its fields.
nlohmann::json AtlasJson(const analysis::atlas::Atlas& atlas);

}  // namespace kscope::report
