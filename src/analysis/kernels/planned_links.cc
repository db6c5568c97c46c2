#include "analysis/kernels/planned_links.h"

#include <array>

#include "analysis/names/kernel_names.h"

namespace kscope::analysis {

Result<PlannedLinkCounts> LinkPlannedLaunches(store::Store& store, int64_t run_id, int64_t source_id,
                                              const std::vector<int64_t>& profiled_rows, RunTimeline& kernels) {
  auto cols = kernels.Kernels();
  if (!cols.ok()) return cols.error();
  const KernelColumns& c = **cols;
  const int64_t discovery_run = kernels.run_id();
  auto q = store.db().Prepare(
      "SELECT l.id, l.ncu_id, s.value, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z "
      "FROM ncu_launch l JOIN string s ON s.id = l.name_id WHERE l.run_id = ?1 AND l.source_id = ?2");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id).Bind(2, source_id);
  struct Pending {
    int64_t id, row;
  };
  std::vector<Pending> links;
  std::vector<int64_t> name_ids;
  std::vector<std::string> ncu_names;
  PlannedLinkCounts counts;
  while (q->Step()) {
    const int64_t ncu_id = q->Int(1);
    if (ncu_id < 0 || ncu_id >= static_cast<int64_t>(profiled_rows.size())) {
      ++counts.mismatched;
      continue;
    }
    const auto row = static_cast<size_t>(profiled_rows[static_cast<size_t>(ncu_id)]);
    bool same = row < c.name.size();
    for (size_t d = 0; d < 6 && same; ++d) same = c.dims[d][row] == q->Int(3 + static_cast<int>(d));
    if (!same) {
      ++counts.mismatched;
      continue;
    }
    links.push_back({q->Int(0), static_cast<int64_t>(row)});
    name_ids.push_back(c.name[row]);
    ncu_names.push_back(q->Text(2));
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  auto names = store.Strings(name_ids);
  if (!names.ok()) return names.error();
  auto up = store.db().Prepare(
      "UPDATE ncu_launch SET kernel_index = ?3, kernel_run = ?4, kernel_link = 'planned' WHERE run_id = ?1 AND id = "
      "?2");
  if (!up.ok()) return up.error();
  for (size_t i = 0; i < links.size(); ++i) {
    // ncu and nsys spell one kernel differently; their match keys agree.
    if (KernelMatchKey(names->at(name_ids[i])) != KernelMatchKey(ncu_names[i])) {
      ++counts.mismatched;
      continue;
    }
    up->Bind(1, run_id).Bind(2, links[i].id).Bind(3, links[i].row).Bind(4, discovery_run);
    KSCOPE_RETURN_IF_ERROR(up->Run());
    ++counts.linked;
  }
  return counts;
}

}  // namespace kscope::analysis
