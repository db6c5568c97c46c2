// What an ncu page must hold for kscope's numbers to be right: each launch's shape (a page
// without "Grid Size" or "Block Size" would give launches of (0, 0, 0)) and its duration (a
// page without gpu__time_duration.sum would give GPU times of 0). A page without them is
// refused with one line naming what is missing and how to export a page that has it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace kscope::import::ncu {

// The duration metric's name, and its label on the details page.
inline constexpr const char* kDurationMetric = "gpu__time_duration.sum";

// Fails when the header of a page (raw or details) lacks a shape column.
Status CheckShapeColumns(const std::string& path, const std::vector<std::string>& header, std::string_view page);
// Fails when a raw page's header lacks the duration metric.
Status CheckRawDuration(const std::string& path, const std::vector<std::string>& header);
// The error for a details page whose launches have no Duration metric.
Error DetailsWithoutDuration(const std::string& path);

}  // namespace kscope::import::ncu
