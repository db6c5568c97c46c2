#include "store/event_writer.h"

#include "store/column_codec.h"

namespace kscope::store {

Result<int64_t> NextChunk(sql::Db& db, int64_t run_id, std::string_view stream) {
  auto q = db.Prepare("SELECT coalesce(max(chunk) + 1, 0) FROM event_chunk WHERE run_id = ?1 AND stream = ?2");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id).Bind(2, stream);
  const int64_t next = q->Step() ? q->Int(0) : 0;
  KSCOPE_RETURN_IF_ERROR(q->status());
  return next;
}

EventWriter::EventWriter(sql::Db& db, int64_t run_id, const StreamSpec& spec, std::mutex* db_lock)
    : db_(db), db_lock_(db_lock), run_id_(run_id), spec_(spec), columns_(spec.columns.size()) {}

Status EventWriter::Append(std::span<const int64_t> row) {
  for (size_t i = 0; i < columns_.size(); ++i) columns_[i].Append(row[i]);
  ++rows_;
  if (columns_[0].rows() >= kChunkRows) return Flush();
  return Status::Ok();
}

Status EventWriter::Flush() {
  const auto rows = static_cast<int64_t>(columns_[0].rows());
  if (rows == 0) return Status::Ok();
  std::vector<std::vector<uint8_t>> blobs;
  blobs.reserve(columns_.size());
  for (auto& c : columns_) blobs.push_back(c.Finish());
  std::unique_lock<std::mutex> hold;
  if (db_lock_ != nullptr) hold = std::unique_lock<std::mutex>(*db_lock_);
  // The next free chunk number: several writers (threads, or files of one run) may append
  // to the same stream, each chunk whole.
  int64_t chunk = next_chunk_;
  if (chunk < 0) {
    auto next = NextChunk(db_, run_id_, spec_.name);
    if (!next.ok()) return next.error();
    chunk = *next;
  } else {
    ++next_chunk_;
  }
  auto st = db_.Prepare(
      "INSERT INTO event_chunk(run_id, stream, col, chunk, rows, encoding, data) VALUES (?1,?2,?3,?4,?5,?6,?7)");
  if (!st.ok()) return st.error();
  for (size_t i = 0; i < columns_.size(); ++i) {
    st->Bind(1, run_id_)
        .Bind(2, spec_.name)
        .Bind(3, spec_.columns[i].name)
        .Bind(4, chunk)
        .Bind(5, rows)
        .Bind(6, kEncoding)
        .BindBlob(7, blobs[i]);
    KSCOPE_RETURN_IF_ERROR(st->Run());
  }
  return Status::Ok();
}

Status EventWriter::Finish() {
  KSCOPE_RETURN_IF_ERROR(Flush());
  std::unique_lock<std::mutex> hold;
  if (db_lock_ != nullptr) hold = std::unique_lock<std::mutex>(*db_lock_);
  auto st = db_.Prepare(
      "INSERT INTO event_stream(run_id, stream, rows) VALUES (?1,?2,?3) "
      "ON CONFLICT(run_id, stream) DO UPDATE SET rows = rows + excluded.rows");
  if (!st.ok()) return st.error();
  st->Bind(1, run_id_).Bind(2, spec_.name).Bind(3, rows_);
  return st->Run();
}

}  // namespace kscope::store
