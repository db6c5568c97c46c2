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

// Family (or kernel), library, its figure (% of roof or SM %), launches with it and their
// median, then per launch parameter and bin: the bin's launches and figure, median [p25-p75].
Table AtlasCorrelatesTable(const analysis::atlas::Atlas& atlas);

// Per outlying launch configuration: its family's figure and median, the kernel (its base name:
// no template arguments or parameters; JSON has the full name), grid, block,
// waves, registers, shared memory, launches, models, its median and its % of the family's.
Table AtlasOutliersTable(const analysis::atlas::Atlas& atlas);

// For the terminal: each shape cell of the two tables above (a bin of the shape parameter, an
// outlier's shape) longer than 80 characters cut to its first 77 and "..." (a foreach op lists
// hundreds of tensors); CSV and JSON keep it whole.
void ShortenShapes(Table& table);

// Per signal: its state, how many families show it of those with the metrics, their models
// and share of GPU time, the rule and the metrics it rests on.
Table AtlasSignalsTable(const analysis::atlas::Atlas& atlas);

// Per signal and family that shows it: launches with the metrics, those showing it, models,
// GPU time and the signal's figure.
Table AtlasSignalFamiliesTable(const analysis::atlas::Atlas& atlas);

// Per model and collective kind: runs, ranks, launches, GPU time, its share of the model's
// kernel time, the time no compute kernel of its rank hides and its percent of its own time.
Table AtlasCommunicationTable(const analysis::atlas::Atlas& atlas);

nlohmann::json AtlasCommunicationJson(const analysis::atlas::Atlas& atlas);
nlohmann::json AtlasCorrelatesJson(const analysis::atlas::Atlas& atlas);
// By kernel: each row key's short name (analysis/names/short_names.h), unique over the
// atlas's popularity, performance and correlates rows; by family, empty (families are unique).
std::map<std::string, std::string> AtlasShortNames(const analysis::atlas::Atlas& atlas);
nlohmann::json AtlasSignalsJson(const analysis::atlas::Atlas& atlas);

// The whole atlas; docs/atlas.md describes its fields.
nlohmann::json AtlasJson(const analysis::atlas::Atlas& atlas);

// The same atlas with every text and map key as DisplayText (util/display_text.h) shows it:
// what atlas.html shows and embeds.
analysis::atlas::Atlas ForDisplay(const analysis::atlas::Atlas& atlas);

}  // namespace kscope::report
