// The short kernel names of a run's report, computed over every name the report shows so that
// they are unique across its tables and charts.
#include <functional>
#include <vector>

#include "analysis/names/short_names.h"
#include "report/run_report.h"

namespace kscope::report {

namespace {

// Every (full name, short name slot) pair of the report, in the report's order.
using Slot = std::pair<const std::string*, std::string*>;
std::vector<Slot> NameSlots(RunReport& r) {
  std::vector<Slot> slots;
  for (TopKernel& k : r.top_kernels) slots.emplace_back(&k.name, &k.short_name);
  for (StagePart& s : r.stages) {
    for (StageKernelRow& k : s.top_kernels) slots.emplace_back(&k.name, &k.short_name);
  }
  for (RankPart& rank : r.ranks) {
    for (TopKernel& k : rank.top_kernels) slots.emplace_back(&k.name, &k.short_name);
  }
  for (RooflinePoint& p : r.roofline.points) slots.emplace_back(&p.kernel, &p.short_name);
  for (ProfiledKernel& p : r.profiled) slots.emplace_back(&p.name, &p.short_name);
  if (r.critical_path) {
    for (PathKernelRow& k : r.critical_path->kernels) slots.emplace_back(&k.name, &k.short_name);
  }
  return slots;
}

}  // namespace

void AddShortNames(RunReport& report) {
  const std::vector<Slot> slots = NameSlots(report);
  std::vector<std::string> names;
  names.reserve(slots.size());
  for (const auto& [name, _] : slots) names.push_back(*name);
  const std::vector<std::string> shorts = analysis::ShortKernelNames(names);
  for (size_t i = 0; i < slots.size(); ++i) *slots[i].second = shorts[i];
}

}  // namespace kscope::report
