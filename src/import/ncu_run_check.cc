#include "import/ncu_run_check.h"

#include <fmt/format.h>

namespace kscope::import {

Status CheckNcuBelongsToRun(store::Store& store, int64_t run_id, const std::vector<NcuFileOfRun>& files) {
  if (files.empty()) return Status::Ok();
  auto kernels = store.StreamRows(run_id, "kernel");
  if (!kernels.ok()) return kernels.error();
  if (*kernels == 0) return Status::Ok();
  auto q =
      store.db().Prepare("SELECT count(*), count(kernel_index) FROM ncu_launch WHERE run_id = ?1 AND source_id = ?2");
  if (!q.ok()) return q.error();
  int64_t launches = 0;
  int64_t linked = 0;
  for (const auto& f : files) {
    q->Bind(1, run_id).Bind(2, f.source_id);
    if (!q->Step()) return q->status();
    launches += q->Int(0);
    linked += q->Int(1);
    q->Reset();
  }
  if (launches == 0 || linked > 0) return Status::Ok();
  return Error{files.front().path,
               fmt::format("none of its {} profiled launches matches a kernel of run {} (kernel name, grid and "
                           "block): it comes from another program or run",
                           launches, run_id),
               fmt::format("import it as a run of its own (kscope import {}), or add it to run {} anyway with --force",
                           files.front().path, run_id)};
}

}  // namespace kscope::import
