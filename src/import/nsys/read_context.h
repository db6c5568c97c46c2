// What the reader threads of one nsys export share: the file, the store (used under one
// lock), problem counting, and where each rowid slice of a table puts its rows.
#pragma once

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "import/importer.h"
#include "import/nsys/export_schema.h"
#include "import/nsys/string_mapper.h"
#include "import/nsys/time_bounds.h"
#include "store/column_codec.h"
#include "store/event_writer.h"

namespace kscope::import::nsys {

// Problems stored in detail per file; beyond this they are only counted.
inline constexpr int64_t kMaxProblemDetails = 200;

// A column that may be NULL, with a single call in the common case of a non-zero value.
inline int64_t Value(const sql::Stmt& q, int col) {
  const int64_t v = q.Int(col);
  return v == 0 && q.IsNull(col) ? store::kNull : v;
}

// What the reader threads of one file share. The store is used only under `store_lock`.
class FileContext {
 public:
  FileContext(const std::string& file, const ImportTarget& to, const ExportSchema& export_schema,
              const ExportStrings& export_strings)
      : path(file), target(to), schema(export_schema), strings(export_strings) {}

  const std::string& path;
  const ImportTarget& target;
  const ExportSchema& schema;
  const ExportStrings& strings;
  std::mutex store_lock;
  std::atomic<int64_t> rows_read{0};
  std::atomic<int64_t> rows_skipped{0};
  int64_t span_end = INT64_MAX;  // the export's end (ExportSpanEnd): no event ends later

  // An event of this file on the run's timeline (ImportTarget's placement, for the exports of
  // one job's nodes in one run): its times moved by the file's offset, its process or thread
  // id put on the file's host. Times checked before, on the file's own clock; kNull stays.
  void Place(int64_t& start, int64_t& end, int64_t& global_id) const {
    if (target.placement.offset_ns != 0) {
      if (start != store::kNull) start += target.placement.offset_ns;
      if (end != store::kNull) end += target.placement.offset_ns;
    }
    global_id = OnHost(global_id);
  }
  // nsys's global process and thread ids: the host above bit 48, then the process and thread.
  [[nodiscard]] int64_t OnHost(int64_t global_id) const {
    if (target.placement.host == 0 || global_id == store::kNull) return global_id;
    return (global_id & ((int64_t{1} << 48) - 1)) | (target.placement.host << 48);
  }

  // Each reader thread reads through its own connection.
  // A slice is one forward scan: a small page cache does, and keeps memory per thread low.
  Result<sql::Db> OpenExport() const {
    auto db = sql::Db::Open(path, sql::OpenMode::kReadOnly);
    if (!db.ok()) return Error{path, "cannot open as an SQLite database", "check that it is an nsys SQLite export"};
    (void)db->Exec("PRAGMA cache_size=-256");
    return db;
  }

  Result<sql::Stmt> Select(sql::Db& db, const std::string& table, const std::vector<std::string>& cols,
                           const std::string& where = "") const {
    auto q = db.Prepare(fmt::format("SELECT rowid, {} FROM \"{}\" {}", schema.SelectList(table, cols), table, where));
    if (!q.ok()) {
      return Error{path, fmt::format("cannot read table {} ({})", table, db.ErrorMessage()),
                   "the export may be corrupt: export it again"};
    }
    return q;
  }

  Error ReadError(sql::Db& db, const std::string& table) const {
    return Error{path, fmt::format("corrupt SQLite file while reading {} ({})", table, db.ErrorMessage()),
                 "copy or export it again"};
  }

  Status Problem(const std::string& table, int64_t rowid, const TimeProblem& p) {
    return Problem(table, rowid, p.what, p.raw);
  }
  Status Problem(const std::string& table, int64_t rowid, std::string_view what, const std::string& raw) {
    if (rows_skipped.fetch_add(1) >= kMaxProblemDetails) return Status::Ok();
    const std::lock_guard<std::mutex> hold(store_lock);
    return target.store.AddProblem(target.run_id, target.source_id, fmt::format("{} rowid {}", table, rowid), what,
                                   raw);
  }

  // About how many rows `table` holds (its largest rowid; 0 when empty or absent).
  Result<int64_t> RowEstimate(sql::Db& db, const std::string& table) const {
    if (!schema.HasTable(table)) return int64_t{0};
    auto q = db.Prepare("SELECT max(rowid) FROM \"" + table + "\"");
    if (!q.ok()) return ReadError(db, table);
    if (!q->Step()) return ReadError(db, table);
    return q->IsNull(0) ? int64_t{0} : std::max<int64_t>(q->Int(0), 0);
  }

  // `slice`: which slice of its table this writer holds (-1: the whole table); a slice's
  // chunks are numbered after all chunks of the slices before it, so the stored stream keeps
  // the table's rowid order.
  store::EventWriter Writer(const store::StreamSpec& spec, int64_t slice = -1) {
    store::EventWriter w(target.store.db(), target.run_id, spec, &store_lock);
    if (slice >= 0) w.NumberChunksFrom(chunk_base.at(std::string(spec.name)) + slice * kChunksPerSlice);
    return w;
  }
  static constexpr int64_t kChunksPerSlice = int64_t{1} << 32;
  // Per sliced stream: the first chunk number of this file (after the run's earlier files).
  std::map<std::string, int64_t> chunk_base;

  Status Finish(store::EventWriter& out) {
    rows_read += out.rows();
    return out.Finish();
  }
};

// Rows whose rowid lies in [first, last]: a table is read in slices, one per thread.
struct Slice {
  int64_t first, last;
  size_t max_rows;  // rows the slice can hold (rowids are unique)
  int64_t index;    // which slice of the table, from 0
};

// Where one slice of kernels goes in the run's facts: a region reserved up front, which the
// slice fills in place, so that no slice's rows are copied but by the final compaction.
struct FactRegion {
  std::array<std::vector<int64_t>*, 4> columns;
  std::vector<int32_t>* names;  // string ids, in four bytes
  size_t base = 0;
  size_t capacity = 0;
  size_t count = 0;

  [[nodiscard]] bool Put(const std::array<int64_t, 4>& values, int32_t name) {
    if (count == capacity) return false;
    for (size_t c = 0; c < values.size(); ++c) (*columns[c])[base + count] = values[c];
    (*names)[base + count] = name;
    ++count;
    return true;
  }
};

}  // namespace kscope::import::nsys
