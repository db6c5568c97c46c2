#include "store/migrate.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <tuple>

#include "store/schema.h"
#include "util/utc_now.h"

namespace kscope::store {

namespace {

// A table or index of today's schema, as SQLite keeps its definition.
struct SchemaObject {
  std::string type, name, sql;
};

// One column as PRAGMA table_info describes it, and the foreign keys of a table.
using ColumnShape = std::tuple<std::string, std::string, int64_t, std::optional<std::string>, int64_t>;
using ForeignKeyShape = std::tuple<std::string, std::string, std::string, std::string>;

// Columns renamed since version 1 (table, today's name, the name an older store has).
struct RenamedColumn {
  const char* table;
  const char* now;
  const char* before;
};
constexpr RenamedColumn kRenamed[] = {
    {"run", "nsys_export_version", "nsys_version"},  // 5: the export's version apart from the tool's
};

std::string Quoted(const std::string& identifier) {
  std::string q = "\"";
  for (char c : identifier) {
    q += c;
    if (c == '"') q += '"';
  }
  return q + "\"";
}

// Today's tables and indexes, in the order the DDL declares them, from a scratch database.
Result<std::vector<SchemaObject>> TodaysObjects() {
  auto mem = sql::Db::Open(":memory:", sql::OpenMode::kCreate);
  if (!mem.ok()) return mem.error();
  KSCOPE_RETURN_IF_ERROR(mem->Exec(SchemaTablesDdl()));
  auto q = mem->Prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') "
      "ORDER BY rowid");
  if (!q.ok()) return q.error();
  std::vector<SchemaObject> objects;
  while (q->Step()) objects.push_back({q->Text(0), q->Text(1), q->Text(2)});
  KSCOPE_RETURN_IF_ERROR(q->status());
  return objects;
}

Result<std::vector<ColumnShape>> ColumnsOf(sql::Db& db, const std::string& table) {
  auto q = db.Prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid");
  if (!q.ok()) return q.error();
  q->Bind(1, table);
  std::vector<ColumnShape> columns;
  while (q->Step()) columns.emplace_back(q->Text(0), q->Text(1), q->Int(2), q->OptText(3), q->Int(4));
  KSCOPE_RETURN_IF_ERROR(q->status());
  return columns;
}

Result<std::vector<ForeignKeyShape>> ForeignKeysOf(sql::Db& db, const std::string& table) {
  auto q = db.Prepare(
      "SELECT \"table\", \"from\", coalesce(\"to\", ''), on_delete FROM pragma_foreign_key_list(?1) "
      "ORDER BY id, seq");
  if (!q.ok()) return q.error();
  q->Bind(1, table);
  std::vector<ForeignKeyShape> keys;
  while (q->Step()) keys.emplace_back(q->Text(0), q->Text(1), q->Text(2), q->Text(3));
  KSCOPE_RETURN_IF_ERROR(q->status());
  return keys;
}

Result<bool> ObjectExists(sql::Db& db, const std::string& type, const std::string& name) {
  auto q = db.Prepare("SELECT 1 FROM sqlite_master WHERE type = ?1 AND name = ?2");
  if (!q.ok()) return q.error();
  q->Bind(1, type).Bind(2, name);
  const bool found = q->Step();
  KSCOPE_RETURN_IF_ERROR(q->status());
  return found;
}

Status DropViews(sql::Db& db) {
  auto q = db.Prepare("SELECT name FROM sqlite_master WHERE type = 'view'");
  if (!q.ok()) return q.error();
  std::vector<std::string> views;
  while (q->Step()) views.push_back(q->Text(0));
  KSCOPE_RETURN_IF_ERROR(q->status());
  for (const std::string& v : views) KSCOPE_RETURN_IF_ERROR(db.Exec("DROP VIEW " + Quoted(v)));
  return Status::Ok();
}

// The select list that fills today's columns of `table` from its older copy: same name, else
// the name it had before, else the column's default (it is left out).
std::pair<std::string, std::string> CopyLists(const std::string& table, const std::vector<ColumnShape>& now,
                                              const std::vector<ColumnShape>& before) {
  std::map<std::string, bool> had;
  for (const ColumnShape& c : before) had[std::get<0>(c)] = true;
  std::string into, from;
  for (const ColumnShape& c : now) {
    const std::string& name = std::get<0>(c);
    std::string source;
    if (had.contains(name)) source = name;
    for (const RenamedColumn& r : kRenamed) {
      if (source.empty() && table == r.table && name == r.now && had.contains(r.before)) source = r.before;
    }
    if (source.empty()) continue;
    into += (into.empty() ? "" : ", ") + Quoted(name);
    from += (from.empty() ? "" : ", ") + Quoted(source);
  }
  return {into, from};
}

// Makes `table` again with today's definition and copies its rows over by column name.
Status RebuildTable(sql::Db& db, const SchemaObject& table, const std::vector<ColumnShape>& now,
                    const std::vector<ColumnShape>& before) {
  const std::string old = "kscope_upgrade_old_" + table.name;
  KSCOPE_RETURN_IF_ERROR(db.Exec(fmt::format("ALTER TABLE {} RENAME TO {}", Quoted(table.name), Quoted(old))));
  KSCOPE_RETURN_IF_ERROR(db.Exec(table.sql));
  const auto [into, from] = CopyLists(table.name, now, before);
  if (!into.empty()) {
    KSCOPE_RETURN_IF_ERROR(
        db.Exec(fmt::format("INSERT INTO {} ({}) SELECT {} FROM {}", Quoted(table.name), into, from, Quoted(old))));
  }
  return db.Exec("DROP TABLE " + Quoted(old));
}

// Whether an older store's `table` has other columns or foreign keys than today's (`today`: a
// scratch database with today's tables).
Result<bool> TableDiffers(sql::Db& db, sql::Db& today, const std::string& table) {
  auto now = ColumnsOf(today, table);
  if (!now.ok()) return now.error();
  auto before = ColumnsOf(db, table);
  if (!before.ok()) return before.error();
  if (*now != *before) return true;
  auto keys_now = ForeignKeysOf(today, table);
  if (!keys_now.ok()) return keys_now.error();
  auto keys_before = ForeignKeysOf(db, table);
  if (!keys_before.ok()) return keys_before.error();
  return *keys_now != *keys_before;
}

// Every table and index of today's schema: created where missing, made again where its columns
// or foreign keys differ.
Status BringTablesToToday(sql::Db& db) {
  auto objects = TodaysObjects();
  if (!objects.ok()) return objects.error();
  auto today = sql::Db::Open(":memory:", sql::OpenMode::kCreate);
  if (!today.ok()) return today.error();
  KSCOPE_RETURN_IF_ERROR(today->Exec(SchemaTablesDdl()));
  for (const SchemaObject& o : *objects) {
    auto exists = ObjectExists(db, o.type, o.name);
    if (!exists.ok()) return exists.error();
    if (!*exists) {
      KSCOPE_RETURN_IF_ERROR(db.Exec(o.sql));
      continue;
    }
    if (o.type != "table") continue;
    auto differs = TableDiffers(db, *today, o.name);
    if (!differs.ok()) return differs.error();
    if (!*differs) continue;
    auto now = ColumnsOf(*today, o.name);
    auto before = ColumnsOf(db, o.name);
    if (!now.ok() || !before.ok()) return now.ok() ? before.error() : now.error();
    KSCOPE_RETURN_IF_ERROR(RebuildTable(db, o, *now, *before));
  }
  return Status::Ok();
}

// Rows whose meaning an older store left implicit, made explicit as today's store keeps them.
Status FillImpliedValues(sql::Db& db) {
  // Before kernel_run and kernel_link (schema 3 of early stores) a launch was linked only by
  // matching, and only to its own run's kernels.
  return db.Exec(
      "UPDATE ncu_launch SET kernel_run = run_id, kernel_link = 'matched' "
      "WHERE kernel_index IS NOT NULL AND kernel_run IS NULL");
}

// What each run lacks that only its source files can give: thread names (stored from schema 4)
// and the XXH3 content hash (schema 6 had none or FNV-1a).
Status RecordGaps(sql::Db& db, int from) {
  auto gap = db.Prepare(
      "INSERT OR IGNORE INTO run_gap (run_id, what, since) "
      "SELECT DISTINCT s.run_id, ?1, ?2 FROM source_file s WHERE "
      "(?1 = 'content_hash' AND (s.content_hash IS NULL OR s.content_hash NOT LIKE 'xxh3-64:%')) OR "
      "(?1 = 'thread_names' AND s.format = 'nsys-sqlite' AND NOT EXISTS "
      " (SELECT 1 FROM thread_name t WHERE t.run_id = s.run_id))");
  if (!gap.ok()) return gap.error();
  KSCOPE_RETURN_IF_ERROR(gap->Bind(1, "content_hash").Bind(2, from).Run());
  if (from < 4) KSCOPE_RETURN_IF_ERROR(gap->Bind(1, "thread_names").Bind(2, from).Run());
  return Status::Ok();
}

Status SetVersion(sql::Db& db, int from) {
  auto set = db.Prepare("INSERT OR REPLACE INTO kscope_meta (key, value) VALUES (?1, ?2)");
  if (!set.ok()) return set.error();
  KSCOPE_RETURN_IF_ERROR(set->Bind(1, "schema_version").Bind(2, std::to_string(kSchemaVersion)).Run());
  return set->Bind(1, fmt::format("upgraded_from_{}", from)).Bind(2, UtcNow()).Run();
}

Status CheckForeignKeys(sql::Db& db) {
  auto q = db.Prepare("SELECT \"table\", rowid, parent FROM pragma_foreign_key_check");
  if (!q.ok()) return q.error();
  if (q->Step()) {
    return Error{db.path(),
                 fmt::format("the upgraded store would break a reference: a row of {} names a missing row of {}",
                             q->Text(0), q->Text(2)),
                 "nothing was changed; report this with the store"};
  }
  return q->status();
}

Result<SchemaUpgrade> Summarize(sql::Db& db, int from) {
  SchemaUpgrade up;
  up.from = from;
  auto runs = db.Prepare("SELECT DISTINCT run_id FROM ncu_launch ORDER BY run_id");
  if (!runs.ok()) return runs.error();
  while (runs->Step()) up.runs_to_derive.push_back(runs->Int(0));
  KSCOPE_RETURN_IF_ERROR(runs->status());
  auto gaps = db.Prepare("SELECT count(DISTINCT run_id) FROM run_gap");
  if (!gaps.ok()) return gaps.error();
  if (gaps->Step()) up.runs_with_gaps = gaps->Int(0);
  KSCOPE_RETURN_IF_ERROR(gaps->status());
  return up;
}

}  // namespace

Result<int> StoredSchemaVersion(sql::Db& db) {
  auto tables = db.Prepare("SELECT count(*) FROM sqlite_master");
  if (!tables.ok()) return tables.error();
  if (!tables->Step()) return tables->status().ok() ? Result<int>(0) : Result<int>(tables->status().error());
  if (tables->Int(0) == 0) return 0;
  if (!db.TableExists("kscope_meta")) {
    return Error{"", "not a kscope database (it has no kscope_meta table)",
                 "pass --db with a kscope database, or a new path to create one"};
  }
  auto q = db.Prepare("SELECT value FROM kscope_meta WHERE key = 'schema_version'");
  if (!q.ok()) return q.error();
  if (!q->Step()) {
    if (!q->status().ok()) return q->status().error();
    return Error{"", "kscope database without a schema version", "re-create it"};
  }
  const std::string text = q->Text(0);
  int version = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || version > 100000) {
      return Error{"", fmt::format("kscope database with an unreadable schema version '{}'", text), "re-create it"};
    }
    version = version * 10 + (c - '0');
  }
  return version;
}

Result<SchemaUpgrade> MigrateSchema(sql::Db& db, int from) {
  if (from < 1 || from >= kSchemaVersion) {
    return Error{db.path(), fmt::format("no upgrade from schema version {} to {}", from, kSchemaVersion), ""};
  }
  // Renaming a table must not rewrite the references other tables make to it: the table made
  // again under the old name takes them over.
  KSCOPE_RETURN_IF_ERROR(db.Exec("PRAGMA legacy_alter_table = ON"));
  KSCOPE_RETURN_IF_ERROR(DropViews(db));
  KSCOPE_RETURN_IF_ERROR(BringTablesToToday(db));
  KSCOPE_RETURN_IF_ERROR(db.Exec("PRAGMA legacy_alter_table = OFF"));
  KSCOPE_RETURN_IF_ERROR(FillImpliedValues(db));
  KSCOPE_RETURN_IF_ERROR(RecordGaps(db, from));
  KSCOPE_RETURN_IF_ERROR(db.Exec(SchemaViewsDdl()));
  KSCOPE_RETURN_IF_ERROR(SetVersion(db, from));
  KSCOPE_RETURN_IF_ERROR(CheckForeignKeys(db));
  return Summarize(db, from);
}

Status CopyDatabase(sql::Db& db, const std::string& dest) {
  auto copy = sql::Db::Open(dest, sql::OpenMode::kCreate);
  if (!copy.ok()) return copy.error();
  sqlite3_backup* backup = sqlite3_backup_init(copy->raw(), "main", db.raw(), "main");
  if (backup == nullptr) return Error{dest, "cannot copy the store: " + copy->ErrorMessage(), "check free disk space"};
  const int step = sqlite3_backup_step(backup, -1);
  const int finish = sqlite3_backup_finish(backup);
  if (step != SQLITE_DONE || finish != SQLITE_OK) {
    return Error{dest, fmt::format("cannot copy the store: {}", sqlite3_errstr(step != SQLITE_DONE ? step : finish)),
                 "check free disk space and that the folder is writable"};
  }
  return Status::Ok();
}

}  // namespace kscope::store
