#include "analysis/kernels/ncu_timeline_link.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/names/kernel_names.h"
#include "analysis/timeline/launch_links.h"
#include "analysis/timeline/nsys_events.h"

namespace kscope::analysis {

std::string InnermostNcuRange(std::string_view nvtx) {
  // Each range is a quoted "domain:range:payload..." entry; the last one is the innermost.
  const auto close = nvtx.rfind('"');
  if (close == std::string_view::npos || close == 0) return "";
  const auto open = nvtx.rfind('"', close - 1);
  if (open == std::string_view::npos) return "";
  const std::string_view entry = nvtx.substr(open + 1, close - open - 1);
  const auto first = entry.find(':');
  if (first == std::string_view::npos) return "";
  const auto second = entry.find(':', first + 1);
  return std::string(
      entry.substr(first + 1, second == std::string_view::npos ? std::string_view::npos : second - first - 1));
}

namespace {

using Shape = std::array<int64_t, 6>;                     // grid x, y, z, block x, y, z
using Key = std::tuple<std::string, Shape, std::string>;  // name key, shape, range
struct UnlinkedLaunch {
  int64_t id;
  Key key;
};

// The run's ncu launches not linked yet, in the order ncu profiled them (file by file).
Result<std::vector<UnlinkedLaunch>> UnlinkedLaunches(store::Store& store, int64_t run_id) {
  auto q = store.db().Prepare(
      "SELECT l.id, s.value, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z, l.nvtx "
      "FROM ncu_launch l JOIN string s ON s.id = l.name_id WHERE l.run_id = ?1 AND l.kernel_index IS NULL "
      "ORDER BY l.source_id, l.ncu_id");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  std::vector<UnlinkedLaunch> launches;
  while (q->Step()) {
    Shape shape{};
    for (int d = 0; d < 6; ++d) shape[static_cast<size_t>(d)] = q->Int(2 + d);
    launches.push_back({q->Int(0), {KernelMatchKey(q->Text(1)), shape, InnermostNcuRange(q->Text(8))}});
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  return launches;
}

// The kernels that can stand for each wanted key, in launch order (by their launching call's
// start); a kernel inside ranges A and B is a candidate for "", A and B.
Result<std::map<Key, std::vector<int64_t>>> Candidates(store::Store& store, RunTimeline& timeline,
                                                       const std::map<Key, size_t>& wanted) {
  auto events = timeline.Events();
  if (!events.ok()) return events.error();
  auto kernels = timeline.Kernels();
  if (!kernels.ok()) return kernels.error();
  auto links = timeline.Links();
  if (!links.ok()) return links.error();
  const NsysEvents& e = **events;
  const KernelColumns& k = **kernels;
  const size_t n = k.name.size();
  std::vector<int64_t> ids(k.name.begin(), k.name.end());
  ids.insert(ids.end(), e.nvtx.text.begin(), e.nvtx.text.end());
  auto strings = store.Strings(ids);
  if (!strings.ok()) return strings.error();
  std::unordered_map<int64_t, std::string> keys;  // name id -> match key
  for (int64_t id : k.name) {
    if (keys.count(id) == 0) keys[id] = KernelMatchKey(strings->at(id));
  }
  std::vector<int64_t> order(e.kernels.start.begin(), e.kernels.start.end());
  std::vector<std::vector<std::string>> ranges(n);
  for (const auto& link : **links) {
    if (link.op >= n) continue;
    order[link.op] = e.api.start[link.api];
    if (link.range >= 0) ranges[link.op].push_back(strings->at(e.nvtx.text[static_cast<size_t>(link.range)]));
  }
  std::vector<size_t> rows(n);
  for (size_t i = 0; i < n; ++i) rows[i] = i;
  std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) { return order[a] < order[b]; });
  std::map<Key, std::vector<int64_t>> candidates;
  for (size_t r : rows) {
    Shape shape{};
    for (size_t d = 0; d < 6; ++d) shape[d] = k.dims[d][r];
    const std::string& name = keys[k.name[r]];
    auto add = [&](const std::string& range) {
      Key key{name, shape, range};
      if (wanted.count(key) != 0) candidates[key].push_back(static_cast<int64_t>(r));
    };
    add("");
    for (const auto& range : ranges[r]) add(range);
  }
  return candidates;
}

}  // namespace

Result<int64_t> LinkNcuToTimeline(store::Store& store, RunTimeline& timeline, int64_t launches_run) {
  const int64_t run_id = launches_run != 0 ? launches_run : timeline.run_id();
  auto launches = UnlinkedLaunches(store, run_id);
  if (!launches.ok()) return launches.error();
  if (launches->empty()) return int64_t{0};
  auto kernels = timeline.KernelCount();
  if (!kernels.ok()) return kernels.error();
  if (*kernels == 0) return int64_t{0};
  std::map<Key, size_t> wanted;  // key -> the next candidate to take
  for (const auto& l : *launches) wanted[l.key] = 0;
  auto candidates = Candidates(store, timeline, wanted);
  if (!candidates.ok()) return candidates.error();
  auto up = store.db().Prepare(
      "UPDATE ncu_launch SET kernel_index = ?3, kernel_run = ?4, kernel_link = 'matched' WHERE run_id = ?1 AND id = "
      "?2");
  if (!up.ok()) return up.error();
  int64_t linked = 0;
  for (const auto& l : *launches) {
    auto& next = wanted[l.key];
    auto it = candidates->find(l.key);
    if (it == candidates->end() || next >= it->second.size()) continue;
    up->Bind(1, run_id).Bind(2, l.id).Bind(3, it->second[next++]).Bind(4, timeline.run_id());
    KSCOPE_RETURN_IF_ERROR(up->Run());
    ++linked;
  }
  return linked;
}

}  // namespace kscope::analysis
