// What a timeline diagnosis finds worth fixing: each finding with its size (a share of the
// wall time), the evidence in a sentence or two, and the usual fix. Only findings whose
// thresholds are crossed appear, largest first. timeline.h defines the terms.
#pragma once

#include <vector>

#include "analysis/timeline/timeline.h"

namespace kscope::analysis {

std::vector<Finding> TimelineFindings(const TimelineDiagnosis& d, const TimelineThresholds& t);

}  // namespace kscope::analysis
