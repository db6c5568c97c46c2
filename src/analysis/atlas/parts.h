// The atlas's views, each filling its part of an Atlas whose runs and models are chosen.
#pragma once

#include <string>
#include <unordered_map>

#include "analysis/atlas/atlas.h"

namespace kscope::analysis::atlas {

// nsys's spelling of each kernel name of the selected runs, by its KernelMatchKey.
using NsysNames = std::unordered_map<std::string, std::string>;

// Popularity from each run's kernel_summary; also each run's kernel time and launches.
Result<NsysNames> AddPopularity(store::Store& store, Atlas& atlas);

// Performance from each run's ncu launches; also each run's profiled launch count. By kernel,
// a kernel is keyed by nsys's spelling of its name where nsys saw it, so that its rows in
// both views carry the same key.
Status AddPerformance(store::Store& store, const ClassifyThresholds& thresholds, const NsysNames& nsys_names,
                      Atlas& atlas);

}  // namespace kscope::analysis::atlas
