// The one place that knows ncu's metric names: which metric each section shows under which
// label, and the alternate names the same quantity has on other GPU architectures or ncu
// versions. Taken from the section files of Nsight Compute 2025.3.1 and checked against the
// devset's details pages (printed with --print-metric-name label and name).
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace kscope::tools {

struct SectionMetric {
  std::string_view section;        // section identifier, e.g. "SpeedOfLight"
  std::string_view section_title;  // as ncu prints it, e.g. "GPU Speed Of Light Throughput"
  std::string_view label;          // e.g. "Duration"
  std::string_view metric;         // e.g. "gpu__time_duration.sum"
  // Required metrics are collected whenever their section is; an optional one exists only
  // on some architectures (ncu's section files filter it by compute capability).
  bool required = true;
  std::vector<std::string_view> alternates;  // other names of the same quantity
};

// Every header metric of every section, sections in ncu's order, rows in the order ncu's
// details page and per-kernel summary print them.
std::span<const SectionMetric> SectionMetrics();

// Other names of `metric` (on other architectures or ncu versions), without `metric` itself.
std::vector<std::string_view> AlternateNames(std::string_view metric);

// The catalog row for a section title and label, or nullptr.
const SectionMetric* FindSectionMetric(std::string_view section_title, std::string_view label);

}  // namespace kscope::tools
