// Appends rows to one event stream of one run, flushing a compressed chunk per column
// every kChunkRows rows. Memory stays bounded whatever the size of the input. Several
// writers may append to one stream at once (with a shared lock): chunks stay whole, and
// the stream's rows are the union of theirs.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "store/column_codec.h"
#include "store/event_streams.h"
#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::store {

inline constexpr size_t kChunkRows = 65536;

// The number the next chunk of a run's stream takes: one past its last (0 for a new stream).
Result<int64_t> NextChunk(sql::Db& db, int64_t run_id, std::string_view stream);

class EventWriter {
 public:
  // `db_lock`, when given, is held around every use of `db`, so that writers of several
  // streams can run on their own threads; chunks are compressed outside it.
  EventWriter(sql::Db& db, int64_t run_id, const StreamSpec& spec, std::mutex* db_lock = nullptr);

  // Numbers this writer's chunks first_chunk, first_chunk + 1, ... instead of after the
  // stream's last chunk when each is written: parallel writers of one stream (one per slice
  // of an input table) then keep the input's row order, whatever order they finish in.
  void NumberChunksFrom(int64_t first_chunk) { next_chunk_ = first_chunk; }

  // `row` holds one value per column of the stream, in column order.
  Status Append(std::span<const int64_t> row);
  // Writes the last partial chunk and the stream's row count.
  Status Finish();
  [[nodiscard]] int64_t rows() const { return rows_; }

 private:
  Status Flush();

  sql::Db& db_;
  std::mutex* db_lock_;
  int64_t run_id_;
  const StreamSpec& spec_;
  std::vector<ColumnEncoder> columns_;
  int64_t rows_ = 0;
  int64_t next_chunk_ = -1;  // -1: after the stream's last chunk
};

}  // namespace kscope::store
