#include "analysis/timeline/collective_bytes.h"

namespace kscope::analysis {

Result<CollectiveBytes> LoadCollectiveBytes(store::Store& store, int64_t run_id) {
  auto q = store.db().Prepare("SELECT kernel_row, max(in_bytes, out_bytes) FROM collective_message WHERE run_id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  CollectiveBytes out;
  while (q->Step()) out[q->Int(0)] = q->Int(1);
  KSCOPE_RETURN_IF_ERROR(q->status());
  return out;
}

}  // namespace kscope::analysis
