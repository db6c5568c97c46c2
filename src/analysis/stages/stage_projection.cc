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

std::string StyleOf(int64_t event_type) {
  return event_type == store::nvtx::kPushPop || event_type == store::nvtx::kNvtxtPushPop ? "PushPop" : "StartEnd";
}

// nvtx_gpu_proj_sum's order: projected time, largest first, then name and style.
void SortAsNsys(std::vector<Stage>& stages) {
  std::vector<int> order(stages.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Stage& x = stages[static_cast<size_t>(a)];
    const Stage& y = stages[static_cast<size_t>(b)];
    if (x.proj_ns != y.proj_ns) return x.proj_ns > y.proj_ns;
    return std::tie(x.name, x.style) < std::tie(y.name, y.style);
  });
  std::vector<int> new_id(stages.size());
  for (size_t i = 0; i < order.size(); ++i) new_id[static_cast<size_t>(order[i])] = static_cast<int>(i);
  std::vector<Stage> sorted;
  sorted.reserve(order.size());
  for (int o : order) sorted.push_back(std::move(stages[static_cast<size_t>(o)]));
  for (size_t i = 0; i < sorted.size(); ++i) {
    sorted[i].id = static_cast<int>(i);
    if (sorted[i].parent >= 0) sorted[i].parent = new_id[static_cast<size_t>(sorted[i].parent)];
  }
  stages = std::move(sorted);
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
    auto it = by_name.find({domain + ":" + text, StyleOf(n.event_type[r])});
    if (it == by_name.end()) continue;
    Stage& s = *it->second;
    std::sort(corr.begin(), corr.end());
    ++s.proj_instances;
    s.proj_ns += rows[r].end - rows[r].start;
    s.proj_range_ns += (n.end[r] == kNull ? open_end : n.end[r]) - n.start[r];
    s.gpu_ops += std::unique(corr.begin(), corr.end()) - corr.begin();
  }
  SortAsNsys(stages);
  return Status::Ok();
}

}  // namespace kscope::analysis
