#include "analysis/stages.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analysis/launch_links.h"
#include "analysis/nsys_events.h"
#include "analysis/nsys_facts.h"
#include "store/column_codec.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {

using store::kNull;

std::string StyleOf(int64_t event_type) {
  return event_type == store::nvtx::kPushPop || event_type == store::nvtx::kNvtxtPushPop ? "PushPop" : "StartEnd";
}

}  // namespace

Result<std::vector<Stage>> ComputeStages(store::Store& store, int64_t run_id, const NsysEvents* events) {
  std::optional<NsysEvents> own;
  if (events == nullptr) {
    auto loaded = LoadNsysEvents(store, run_id);
    if (!loaded.ok()) return loaded.error();
    own = std::move(loaded).value();
    events = &*own;
  }
  const NsysEvents& e = *events;
  const auto& n = e.nvtx;
  std::vector<int64_t> ids(n.text.begin(), n.text.end());
  ids.insert(ids.end(), n.domain.begin(), n.domain.end());
  ids.erase(std::remove(ids.begin(), ids.end(), kNull), ids.end());
  auto strings = store.Strings(ids);
  if (!strings.ok()) return strings.error();

  // One stage per (name, style); the NVTX rows of each.
  std::vector<Stage> stages;
  std::map<std::pair<std::string, std::string>, int> index;         // (name, style) -> stage
  std::map<std::tuple<int64_t, int64_t, std::string>, int> by_ids;  // (domain, text, style) ids -> stage
  std::vector<int> stage_of(n.start.size(), -1);
  std::vector<size_t> window_of(n.start.size(), 0);  // the row's window in its stage
  const int64_t open_end = OpenRangeEnd(n);
  for (size_t r = 0; r < n.start.size(); ++r) {
    auto [known, first] = by_ids.try_emplace({n.domain[r], n.text[r], StyleOf(n.event_type[r])}, -1);
    if (first) {  // names are built once per distinct range, not once per row
      const std::string text = strings->count(n.text[r]) != 0 ? strings->at(n.text[r]) : "";
      const std::string domain = n.domain[r] == kNull ? "" : strings->at(n.domain[r]);
      const std::string& style = std::get<2>(known->first);
      std::string name = domain;
      name.append(":").append(text);
      auto [it, added] = index.try_emplace({name, style}, static_cast<int>(index.size()));
      if (added) {
        Stage s;
        s.name = name;
        s.text = text;
        s.style = style;
        stages.push_back(std::move(s));
      }
      known->second = it->second;
    }
    stage_of[r] = known->second;
    Stage& s = stages[static_cast<size_t>(known->second)];
    ++s.instances;
    const int64_t end = n.end[r] == kNull ? open_end : n.end[r];
    s.range_ns += end - n.start[r];
    window_of[r] = s.windows.size();
    s.windows.push_back({n.start[r], end});
  }
  // The tree: a stage's parent is the stage its instances most often sit in (votes gathered
  // in one pass over the rows; ties go to the stage seen first).
  std::vector<std::map<int, int>> votes(stages.size());
  for (size_t r = 0; r < n.start.size(); ++r) {
    if (n.parent[r] != kNull) ++votes[static_cast<size_t>(stage_of[r])][stage_of[static_cast<size_t>(n.parent[r])]];
  }
  for (size_t i = 0; i < stages.size(); ++i) {
    int best = -1, most = 0;
    for (const auto& [p, count] : votes[i]) {
      if (count > most && p != static_cast<int>(i)) best = p, most = count;
    }
    stages[i].parent = best;
  }
  for (auto& s : stages) {
    int depth = 0;
    for (int p = s.parent; p >= 0 && depth <= static_cast<int>(stages.size());
         p = stages[static_cast<size_t>(p)].parent) {
      ++depth;
    }
    s.depth = depth;
  }

  // The GPU work launched inside each stage (an operation counts once per stage).
  const size_t n_kernels = e.kernels.start.size();
  std::vector<std::unordered_set<uint32_t>> ops(stages.size());
  for (const auto& link : LinkLaunches(e, open_end)) {
    if (link.range < 0) continue;
    const int s = stage_of[static_cast<size_t>(link.range)];
    // The instance's window runs on to the end of the GPU work it launched.
    const int64_t op_end = link.op < n_kernels ? e.kernels.end[link.op] : e.memops.end[link.op - n_kernels];
    TimeWindow& w = stages[static_cast<size_t>(s)].windows[window_of[static_cast<size_t>(link.range)]];
    w.end = std::max(w.end, op_end);
    if (!ops[static_cast<size_t>(s)].insert(link.op).second) continue;
    Stage& st = stages[static_cast<size_t>(s)];
    if (link.op < n_kernels) {
      ++st.kernels;
      st.kernel_ns += e.kernels.end[link.op] - e.kernels.start[link.op];
      st.kernel_rows.push_back(link.op);
    } else {
      ++st.memops;
      st.memop_ns += e.memops.end[link.op - n_kernels] - e.memops.start[link.op - n_kernels];
    }
  }
  for (auto& st : stages) {
    std::sort(st.kernel_rows.begin(), st.kernel_rows.end());
    std::unordered_map<int64_t, size_t> by_name;
    for (int64_t row : st.kernel_rows) {
      const auto r = static_cast<size_t>(row);
      auto [it, added] = by_name.try_emplace(e.kernels.name[r], st.kernels_by_time.size());
      if (added) st.kernels_by_time.push_back({e.kernels.name[r], 0, 0});
      ++st.kernels_by_time[it->second].launches;
      st.kernels_by_time[it->second].total_ns += e.kernels.end[r] - e.kernels.start[r];
    }
    std::stable_sort(st.kernels_by_time.begin(), st.kernels_by_time.end(),
                     [](const StageKernel& a, const StageKernel& b) { return a.total_ns > b.total_ns; });
  }

  // nsys's projection figures, as stored at import.
  auto q = store.db().Prepare(
      "SELECT range, style, n, total, gpu_ops, range_total FROM nvtx_projection_summary WHERE run_id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  while (q->Step()) {
    auto it = index.find({q->Text(0), q->Text(1)});
    if (it == index.end()) continue;
    Stage& st = stages[static_cast<size_t>(it->second)];
    st.proj_instances = q->Int(2);
    st.proj_ns = q->Int(3);
    st.gpu_ops = q->Int(4);
    st.proj_range_ns = q->Int(5);
  }
  KSCOPE_RETURN_IF_ERROR(q->status());

  // The order of nsys's nvtx_gpu_proj_sum: projected time, largest first (then name and
  // style); ids and parents follow it.
  std::vector<int> order(stages.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto& x = stages[static_cast<size_t>(a)];
    const auto& y = stages[static_cast<size_t>(b)];
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
  return sorted;
}

}  // namespace kscope::analysis
