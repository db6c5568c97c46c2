// The launches of one kernel grouped as ncu's --print-summary per-kernel groups them (same
// process, name, grid, block, device and compute capability), with each collected
// section's metrics as minimum, maximum and mean over the group's launches.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/kernels/ncu_launches.h"

namespace kscope::analysis {

struct SectionRow {
  std::string_view label;
  std::string_view metric;
  std::string unit;  // base unit
  double min = 0, max = 0, mean = 0;
};

struct SectionSummary {
  std::string_view section;  // identifier, e.g. "SpeedOfLight"
  std::string_view title;    // e.g. "GPU Speed Of Light Throughput"
  std::vector<SectionRow> rows;
};

struct KernelGroup {
  store::NcuLaunchKey key;               // of the first launch; ncu_id is that launch's
  std::vector<int64_t> launch_ids;       // ncu_launch ids, in order
  std::vector<SectionSummary> sections;  // ordered by title, as ncu prints them
};

// A section counts as collected for a launch when every required metric of it is there
// (numbers or text); a row is shown when every launch of the group has it as a number.
std::vector<KernelGroup> GroupByKernel(const std::vector<NcuLaunch>& launches);

}  // namespace kscope::analysis
