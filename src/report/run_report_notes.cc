// Notes on what a run's numbers leave out: rows the import skipped, and NVTX ranges never
// closed (their stage time is not measured but assumed).
#include <fmt/format.h>

#include "report/run_report_parts.h"
#include "store/column_codec.h"

namespace kscope::report::parts {

Status AddDataNotes(store::Store& store, int64_t run_id, int64_t timeline_run, const analysis::NsysEvents& nsys,
                    std::vector<std::string>& notes) {
  auto q = store.db().Prepare("SELECT coalesce(sum(rows_skipped), 0) FROM source_file WHERE run_id IN (?1, ?2)");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id).Bind(2, timeline_run);
  if (!q->Step()) return q->status();
  if (const int64_t skipped = q->Int(0); skipped > 0) {
    notes.push_back(
        fmt::format("{} bad row{} of the imported files {} left out of every number (list them with: kscope query "
                    "\"SELECT * FROM import_problem WHERE run_id IN ({}, {})\")",
                    skipped, skipped == 1 ? "" : "s", skipped == 1 ? "is" : "are", run_id, timeline_run));
  }
  std::vector<int64_t> open;  // text ids of ranges never closed
  for (size_t i = 0; i < nsys.nvtx.end.size(); ++i) {
    if (nsys.nvtx.end[i] == store::kNull) open.push_back(nsys.nvtx.text[i]);
  }
  if (open.empty()) return Status::Ok();
  auto names = store.Strings(open);
  if (!names.ok()) return names.error();
  const std::string first = (*names)[open.front()];
  notes.push_back(
      open.size() == 1
          ? fmt::format("1 NVTX range was never closed ('{}'): it is taken to end at the run's last NVTX timestamp, "
                        "so its time is a guess (0 ms when it opened last)",
                        first)
          : fmt::format("{} NVTX ranges were never closed (the first: '{}'): they are taken to end at the run's last "
                        "NVTX timestamp, so their times are guesses (0 ms for one that opened last)",
                        open.size(), first));
  return Status::Ok();
}

}  // namespace kscope::report::parts
