#include "analysis/stages/stage_projection.h"

#include <algorithm>
#include <climits>
#include <map>
#include <string>
#include <tuple>

#include "analysis/timeline/launch_links.h"
#include "analysis/timeline/nsys_facts.h"
#include "store/column_codec.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {

using store::kNull;

// One range instance projected onto the GPU: its operations' first start to last end.
struct Projection {
  int64_t start = INT64_MAX, end = INT64_MIN;
  std::vector<int64_t> correlations;
};

std::vector<Projection> ProjectRows(const NsysEvents& e) {
  std::vector<Projection> rows(e.nvtx.start.size());
  const size_t n_kernels = e.kernels.start.size();
  for (const LaunchLink& l : LinkLaunches(e, OpenRangeEnd(e.nvtx))) {
    if (l.range < 0) continue;
    const bool kernel = l.op < n_kernels;
    const size_t op = kernel ? l.op : l.op - n_kernels;
    Projection& p = rows[static_cast<size_t>(l.range)];
    p.start = std::min(p.start, kernel ? e.kernels.start[op] : e.memops.start[op]);
    p.end = std::max(p.end, kernel ? e.kernels.end[op] : e.memops.end[op]);
    p.correlations.push_back(kernel ? e.kernels.correlation[op] : e.memops.correlation[op]);
  }
  return rows;
}

}  // namespace

Status ProjectStages(store::Store& store, const NsysEvents& events, std::vector<Stage>& stages) {
  const auto& n = events.nvtx;
  std::vector<int64_t> ids(n.text.begin(), n.text.end());
  ids.insert(ids.end(), n.domain.begin(), n.domain.end());
  ids.erase(std::remove(ids.begin(), ids.end(), kNull), ids.end());
  auto strings = store.Strings(ids);
  if (!strings.ok()) return strings.error();
  std::map<std::pair<std::string, std::string>, Stage*> by_name;  // (name, style)
  for (Stage& s : stages) {
    s.proj_instances = s.proj_ns = s.proj_range_ns = s.gpu_ops = 0;
    by_name[{s.name, s.style}] = &s;
  }
  const std::vector<Projection> rows = ProjectRows(events);
  const int64_t open_end = OpenRangeEnd(n);
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<int64_t> corr = rows[r].correlations;
    if (corr.empty()) continue;
    const std::string domain = n.domain[r] == kNull ? "" : (*strings)[n.domain[r]];
    const std::string text = strings->contains(n.text[r]) ? strings->at(n.text[r]) : "";
    auto it = by_name.find({domain + ":" + text, NvtxStyle(n.event_type[r])});
    if (it == by_name.end()) continue;
    Stage& s = *it->second;
    std::sort(corr.begin(), corr.end());
    ++s.proj_instances;
    s.proj_ns += rows[r].end - rows[r].start;
    s.proj_range_ns += (n.end[r] == kNull ? open_end : n.end[r]) - n.start[r];
    s.gpu_ops += std::unique(corr.begin(), corr.end()) - corr.begin();
  }
  SortStagesAsNsys(stages);
  return Status::Ok();
}

}  // namespace kscope::analysis
