#include "analysis/kernels/ncu_kernel_sections.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "tools/metric_catalog.h"

namespace kscope::analysis {

namespace {

using tools::SectionMetric;
using tools::SectionMetrics;

bool Collected(const NcuLaunch& launch, std::string_view section) {
  for (const SectionMetric& m : SectionMetrics()) {
    if (m.section == section && m.required && !launch.Has(m.metric)) return false;
  }
  return true;
}

std::vector<std::string_view> SectionsInTitleOrder() {
  std::vector<std::pair<std::string_view, std::string_view>> titles;  // (title, id)
  for (const SectionMetric& m : SectionMetrics()) {
    if (std::find(titles.begin(), titles.end(), std::pair{m.section_title, m.section}) == titles.end()) {
      titles.emplace_back(m.section_title, m.section);
    }
  }
  std::sort(titles.begin(), titles.end());
  std::vector<std::string_view> out;
  out.reserve(titles.size());
  for (const auto& t : titles) out.push_back(t.second);
  return out;
}

SectionSummary Summarize(std::string_view section, const std::vector<const NcuLaunch*>& group) {
  SectionSummary s{section, {}, {}};
  for (const SectionMetric& m : SectionMetrics()) {
    if (m.section != section) continue;
    s.title = m.section_title;
    SectionRow row{m.label, m.metric, {}, 0, 0, 0};
    double sum = 0;
    bool all = true;
    for (size_t i = 0; i < group.size() && all; ++i) {
      const auto v = group[i]->Number(m.metric);
      if (!v) {
        all = false;
        break;
      }
      if (i == 0) {
        row.min = row.max = *v;
        auto it = group[i]->metrics.find(std::string(m.metric));
        row.unit = it != group[i]->metrics.end() ? it->second.unit : "";
      }
      row.min = std::min(row.min, *v);
      row.max = std::max(row.max, *v);
      sum += *v;
    }
    if (!all) continue;
    row.mean = sum / static_cast<double>(group.size());
    s.rows.push_back(std::move(row));
  }
  return s;
}

}  // namespace

std::vector<KernelGroup> GroupByKernel(const std::vector<NcuLaunch>& launches) {
  using Key = std::tuple<std::optional<int64_t>, std::string, std::array<int64_t, 3>, std::array<int64_t, 3>,
                         std::optional<int64_t>, std::string>;
  std::map<Key, size_t> index;
  std::vector<KernelGroup> groups;
  std::vector<std::vector<const NcuLaunch*>> members;
  for (const NcuLaunch& l : launches) {
    const Key key{l.key.pid, l.key.name, l.key.grid, l.key.block, l.key.device, l.key.cc};
    auto [it, added] = index.emplace(key, groups.size());
    if (added) {
      groups.push_back({l.key, {}, {}});
      members.emplace_back();
    }
    groups[it->second].launch_ids.push_back(l.id);
    members[it->second].push_back(&l);
  }
  static const std::vector<std::string_view> kOrder = SectionsInTitleOrder();
  for (size_t g = 0; g < groups.size(); ++g) {
    for (std::string_view section : kOrder) {
      if (!Collected(*members[g].front(), section)) continue;
      SectionSummary s = Summarize(section, members[g]);
      if (!s.rows.empty()) groups[g].sections.push_back(std::move(s));
    }
  }
  return groups;
}

}  // namespace kscope::analysis
