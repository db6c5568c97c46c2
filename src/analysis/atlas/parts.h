// The atlas's views, each filling its part of an Atlas whose runs and models are chosen.
#pragma once

#include "analysis/atlas/atlas.h"

namespace kscope::analysis::atlas {

// Popularity from each run's kernel_summary; also each run's kernel time and launches.
Status AddPopularity(store::Store& store, Atlas& atlas);

// Performance from each run's ncu launches; also each run's profiled launch count.
Status AddPerformance(store::Store& store, const ClassifyThresholds& thresholds, Atlas& atlas);

}  // namespace kscope::analysis::atlas
