#include "store/event_reader.h"

#include <algorithm>

#include "store/column_codec.h"

namespace kscope::store {

Result<Columns> ReadColumns(sql::Db& db, int64_t run_id, const StreamSpec& spec, const std::vector<int>& cols) {
  Columns out(cols.size());
  // The stream's row count sizes each column once (capped: a damaged count must not become
  // an allocation; the columns still grow as decoded).
  if (auto n = db.Prepare("SELECT rows FROM event_stream WHERE run_id = ?1 AND stream = ?2"); n.ok()) {
    n->Bind(1, run_id).Bind(2, spec.name);
    if (n->Step() && n->Int(0) > 0) {
      for (auto& c : out) c.reserve(static_cast<size_t>(std::min<int64_t>(n->Int(0), int64_t{1} << 28)));
    }
  }
  auto q = db.Prepare(
      "SELECT rows, encoding, data FROM event_chunk WHERE run_id = ?1 AND stream = ?2 AND col = ?3 ORDER BY chunk");
  if (!q.ok()) return q.error();
  for (size_t i = 0; i < cols.size(); ++i) {
    q->Bind(1, run_id).Bind(2, spec.name).Bind(3, spec.columns[static_cast<size_t>(cols[i])].name);
    while (q->Step()) {
      if (q->Text(1) != kEncoding) return Error{db.path(), "unknown event column encoding " + q->Text(1), ""};
      KSCOPE_RETURN_IF_ERROR(DecodeColumn(q->Blob(2), static_cast<size_t>(q->Int(0)), out[i]));
    }
    KSCOPE_RETURN_IF_ERROR(q->status());
    q->Reset();
    if (i > 0 && out[i].size() != out[0].size()) {
      return Error{db.path(), "event columns of one stream differ in length", "re-import the run"};
    }
  }
  return out;
}

}  // namespace kscope::store
