#include "analysis/kernels/launch_shapes.h"

#include <map>
#include <optional>
#include <vector>

#include "analysis/stages/torch_ops.h"
#include "analysis/timeline/launch_links.h"
#include "analysis/timeline/nsys_events.h"

namespace kscope::analysis {

namespace {

// Whether the run's NVTX ranges include an op range with sizes: one indexed look-up.
Result<bool> HasShapeRanges(store::Store& store, int64_t run_id) {
  auto q = store.db().Prepare(
      "SELECT 1 FROM nvtx_summary WHERE run_id = ?1 AND instr(range, ', sizes = ') > 0 "
      "AND instr(range, ', op_id = ') > 0 LIMIT 1");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  const bool found = q->Step();
  KSCOPE_RETURN_IF_ERROR(q->status());
  return found;
}

// Per kernel row of `kernel_run`'s stream, the shape text of the innermost op range with sizes
// around its launching call on the calling thread ("" where there is none).
Result<std::vector<std::string>> KernelShapes(store::Store& store, RunTimeline& timeline) {
  auto events = timeline.Events();
  if (!events.ok()) return events.error();
  auto links = timeline.Links();
  if (!links.ok()) return links.error();
  const NsysEvents& e = **events;
  auto strings = store.Strings(e.nvtx.text);
  if (!strings.ok()) return strings.error();
  std::vector<std::optional<TorchOpRange>> ops(e.nvtx.text.size());
  for (size_t r = 0; r < ops.size(); ++r) {
    auto it = strings->find(e.nvtx.text[r]);
    if (it == strings->end()) continue;
    auto op = ParseTorchOpRange(it->second);
    if (op && !op->sizes.empty()) ops[r] = std::move(op);
  }
  const size_t kernels = e.kernels.start.size();
  std::vector<int32_t> innermost(kernels, -1);
  for (const LaunchLink& l : **links) {
    if (l.op >= kernels || l.range < 0 || !ops[static_cast<size_t>(l.range)]) continue;
    int32_t& best = innermost[l.op];
    if (best < 0 || e.nvtx.depth[static_cast<size_t>(l.range)] > e.nvtx.depth[static_cast<size_t>(best)]) {
      best = l.range;
    }
  }
  std::vector<std::string> shapes(kernels);
  for (size_t k = 0; k < kernels; ++k) {
    if (innermost[k] >= 0) shapes[k] = ShapeText(*ops[static_cast<size_t>(innermost[k])]);
  }
  return shapes;
}

}  // namespace

Result<std::unordered_map<int64_t, std::string>> LaunchShapes(store::Store& store, int64_t run_id,
                                                              RunTimelines& timelines) {
  auto q = store.db().Prepare(
      "SELECT id, kernel_run, kernel_index FROM ncu_launch WHERE run_id = ?1 AND kernel_index IS NOT NULL "
      "AND kernel_run IS NOT NULL ORDER BY kernel_run, id");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> by_run;  // kernel run -> (launch, kernel row)
  while (q->Step()) by_run[q->Int(1)].push_back({q->Int(0), q->Int(2)});
  KSCOPE_RETURN_IF_ERROR(q->status());
  std::unordered_map<int64_t, std::string> out;
  for (const auto& [kernel_run, launches] : by_run) {
    auto has = HasShapeRanges(store, kernel_run);
    if (!has.ok()) return has.error();
    if (!*has) continue;
    auto shapes = KernelShapes(store, timelines.Of(kernel_run));
    if (!shapes.ok()) return shapes.error();
    for (const auto& [launch, row] : launches) {
      if (row >= 0 && static_cast<size_t>(row) < shapes->size() && !(*shapes)[static_cast<size_t>(row)].empty()) {
        out[launch] = (*shapes)[static_cast<size_t>(row)];
      }
    }
  }
  return out;
}

}  // namespace kscope::analysis
