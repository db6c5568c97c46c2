// The string ids of copied runs: those their rows name (columns whose foreign key is string(id))
// and those inside the event streams' string columns, which are decoded, mapped and encoded again.
#include <fmt/format.h>

#include <array>
#include <unordered_map>

#include "import/run_copy_steps.h"
#include "store/column_codec.h"

namespace kscope::import {

namespace {

struct StringColumn {
  std::string_view stream, column;
};
// Every column of store/event_streams.cc documented as a "string id" (tests/unit/run_copy_test.cc
// checks the two lists agree).
constexpr std::array<StringColumn, 8> kStringColumns = {{
    {"kernel", "name"},
    {"kernel", "short_name"},
    {"kernel", "mangled_name"},
    {"api_call", "name"},
    {"memop", "operation"},
    {"nvtx_range", "domain"},
    {"nvtx_range", "text"},
    {"gpu_metric", "metric"},
}};

constexpr const char* kCopied = "(SELECT old FROM temp.map_run WHERE copied = 1)";

// Calls `each` with every string column chunk of the copied runs, decoded.
template <typename Each>
Status ForEachStringChunk(sql::Db& db, Each each) {
  auto q = db.Prepare(
      fmt::format("SELECT x.id, x.run_id, x.stream, x.col, x.chunk, x.rows, x.encoding, x.data FROM src.event_chunk x "
                  "WHERE x.run_id IN {} AND ({}) ORDER BY x.id",
                  kCopied, copy::StringChunkCondition()));
  if (!q.ok()) return q.error();
  std::vector<int64_t> values;
  while (q->Step()) {
    if (q->Text(6) != store::kEncoding) {
      return Error{db.path(), fmt::format("an event chunk of the source is encoded as '{}'", q->Text(6)),
                   "copy it with the kscope that wrote it"};
    }
    values.clear();
    KSCOPE_RETURN_IF_ERROR(store::DecodeColumn(q->Blob(7), static_cast<size_t>(q->Int(5)), values));
    KSCOPE_RETURN_IF_ERROR(each(*q, values));
  }
  return q->status();
}

Status AddUsedIdsOfRows(sql::Db& db) {
  auto tables = copy::RunTables(db);
  if (!tables.ok()) return tables.error();
  for (const auto& t : *tables) {
    auto q = db.Prepare("SELECT \"from\" FROM pragma_foreign_key_list(?1, 'main') WHERE \"table\" = 'string'");
    if (!q.ok()) return q.error();
    q->Bind(1, t);
    std::vector<std::string> cols;
    while (q->Step()) cols.push_back(q->Text(0));
    for (const auto& c : cols) {
      KSCOPE_RETURN_IF_ERROR(db.Exec(fmt::format(
          "INSERT OR IGNORE INTO temp.used_string (id) SELECT \"{1}\" FROM src.\"{0}\" WHERE run_id IN {2} AND \"{1}\" "
          "IS NOT NULL",
          t, c, kCopied)));
    }
  }
  return Status::Ok();
}

Status AddUsedIdsOfEvents(sql::Db& db) {
  auto add = db.Prepare("INSERT OR IGNORE INTO temp.used_string (id) VALUES (?1)");
  if (!add.ok()) return add.error();
  return ForEachStringChunk(db, [&](sql::Stmt&, const std::vector<int64_t>& values) -> Status {
    for (int64_t v : values) {
      if (v == store::kNull) continue;
      add->Reset();
      add->Bind(1, v);
      KSCOPE_RETURN_IF_ERROR(add->Run());
    }
    return Status::Ok();
  });
}

Result<std::unordered_map<int64_t, int64_t>> LoadStringMap(sql::Db& db) {
  auto q = db.Prepare("SELECT old, new FROM temp.map_string");
  if (!q.ok()) return q.error();
  std::unordered_map<int64_t, int64_t> map;
  while (q->Step()) map.emplace(q->Int(0), q->Int(1));
  KSCOPE_RETURN_IF_ERROR(q->status());
  return map;
}

}  // namespace

bool IsStringColumn(std::string_view stream, std::string_view column) {
  return std::any_of(kStringColumns.begin(), kStringColumns.end(),
                     [&](const StringColumn& c) { return c.stream == stream && c.column == column; });
}

namespace copy {

std::string StringChunkCondition() {
  std::string cond;
  for (const auto& c : kStringColumns) {
    cond += fmt::format("{}(x.stream = '{}' AND x.col = '{}')", cond.empty() ? "" : " OR ", c.stream, c.column);
  }
  return cond;
}

Status MapStrings(sql::Db& db) {
  KSCOPE_RETURN_IF_ERROR(db.Exec("CREATE TEMP TABLE used_string (id INTEGER PRIMARY KEY)"));
  KSCOPE_RETURN_IF_ERROR(AddUsedIdsOfRows(db));
  KSCOPE_RETURN_IF_ERROR(AddUsedIdsOfEvents(db));
  KSCOPE_RETURN_IF_ERROR(
      db.Exec("INSERT OR IGNORE INTO main.string (value) SELECT s.value FROM src.string s JOIN temp.used_string u "
              "ON u.id = s.id ORDER BY s.id"));
  KSCOPE_RETURN_IF_ERROR(db.Exec("CREATE TEMP TABLE map_string (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)"));
  KSCOPE_RETURN_IF_ERROR(
      db.Exec("INSERT INTO temp.map_string (old, new) SELECT s.id, m.id FROM src.string s JOIN temp.used_string u "
              "ON u.id = s.id JOIN main.string m ON m.value = s.value"));
  auto missing = db.Prepare("SELECT id FROM temp.used_string WHERE id NOT IN (SELECT old FROM temp.map_string)");
  if (!missing.ok()) return missing.error();
  if (missing->Step()) {
    return Error{db.path(),
                 fmt::format("the source's runs name string id {}, which its string table lacks", missing->Int(0)),
                 "nothing was copied; the source store is damaged"};
  }
  return missing->status();
}

Status CopyStringChunks(sql::Db& db) {
  auto map = LoadStringMap(db);
  if (!map.ok()) return map.error();
  auto insert = db.Prepare(
      "INSERT INTO main.event_chunk (id, run_id, stream, col, chunk, rows, encoding, data) VALUES ((SELECT new FROM "
      "temp.map_event_chunk WHERE old = ?1), (SELECT new FROM temp.map_run WHERE old = ?2), ?3, ?4, ?5, ?6, ?7, ?8)");
  if (!insert.ok()) return insert.error();
  return ForEachStringChunk(db, [&](sql::Stmt& row, std::vector<int64_t>& values) -> Status {
    for (int64_t& v : values) {
      if (v != store::kNull) v = map->at(v);  // MapStrings checked that every id is mapped
    }
    const std::vector<uint8_t> data = store::EncodeColumn(values);
    insert->Reset();
    insert->Bind(1, row.Int(0)).Bind(2, row.Int(1)).Bind(3, row.Text(2)).Bind(4, row.Text(3));
    insert->Bind(5, row.Int(4)).Bind(6, row.Int(5)).Bind(7, std::string_view(store::kEncoding)).BindBlob(8, data);
    return insert->Run();
  });
}

}  // namespace copy

}  // namespace kscope::import
