#include "import/run_copy_steps.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace kscope::import::copy {

namespace {

constexpr const char* kCopied = "(SELECT old FROM temp.map_run WHERE copied = 1)";

std::string Quoted(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

struct Column {
  std::string name;
  bool integer_key = false;  // INTEGER PRIMARY KEY
};

Result<std::vector<Column>> ColumnsOf(sql::Db& db, const std::string& table) {
  auto q = db.Prepare("SELECT name, upper(type), pk FROM pragma_table_info(?1, 'main') ORDER BY cid");
  if (!q.ok()) return q.error();
  q->Bind(1, table);
  std::vector<Column> cols;
  while (q->Step()) cols.push_back({q->Text(0), q->Text(1) == "INTEGER" && q->Int(2) == 1});
  KSCOPE_RETURN_IF_ERROR(q->status());
  return cols;
}

// Column -> the table its (single-column) foreign key names.
Result<std::map<std::string, std::string>> ReferencesOf(sql::Db& db, const std::string& table) {
  auto q = db.Prepare("SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?1, 'main')");
  if (!q.ok()) return q.error();
  q->Bind(1, table);
  std::map<std::string, std::string> refs;
  while (q->Step()) refs[q->Text(0)] = q->Text(1);
  KSCOPE_RETURN_IF_ERROR(q->status());
  return refs;
}

bool HasOwnIds(const std::string& table, const std::vector<Column>& cols) {
  return table != "run" &&
         std::any_of(cols.begin(), cols.end(), [](const Column& c) { return c.name == "id" && c.integer_key; });
}

std::string Mapped(const std::string& map, const std::string& value) {
  return fmt::format("(SELECT new FROM temp.{} WHERE old = {})", Quoted(map), value);
}

// What a copied column holds in the target.
std::string ColumnExpr(const std::string& table, const Column& col, const std::map<std::string, std::string>& refs,
                       const std::set<std::string>& own_ids) {
  const std::string x = "x." + Quoted(col.name);
  auto ref = refs.find(col.name);
  if (col.name == "run_id" || (table == "run" && col.name == "id") || (ref != refs.end() && ref->second == "run")) {
    return Mapped("map_run", x);
  }
  if (ref != refs.end() && ref->second == "string") return Mapped("map_string", x);
  if (ref != refs.end() && own_ids.contains(ref->second)) return Mapped("map_" + ref->second, x);
  if (col.name == "id" && own_ids.contains(table)) return Mapped("map_" + table, x);
  if (table == "ncu_launch" && col.name == "kernel_run") return Mapped("map_run", x);
  if (table == "ncu_launch" && (col.name == "kernel_index" || col.name == "kernel_link")) {
    return fmt::format("CASE WHEN x.kernel_run IS NULL OR {} IS NOT NULL THEN {} END",
                       Mapped("map_run", "x.kernel_run"), x);
  }
  return x;
}

Result<std::set<std::string>> TablesWithOwnIds(sql::Db& db) {
  auto tables = RunTables(db);
  if (!tables.ok()) return tables.error();
  std::set<std::string> own;
  for (const auto& t : *tables) {
    auto cols = ColumnsOf(db, t);
    if (!cols.ok()) return cols.error();
    if (HasOwnIds(t, *cols)) own.insert(t);
  }
  return own;
}

Result<std::vector<int64_t>> SourceRuns(sql::Db& db, const std::string& source_name, const RunCopyOptions& options) {
  auto exists = db.Prepare("SELECT 1 FROM src.run WHERE id = ?1");
  if (!exists.ok()) return exists.error();
  std::vector<int64_t> runs = options.runs;
  if (runs.empty()) {
    auto all = db.Prepare("SELECT id FROM src.run ORDER BY id");
    if (!all.ok()) return all.error();
    while (all->Step()) runs.push_back(all->Int(0));
    KSCOPE_RETURN_IF_ERROR(all->status());
    if (runs.empty()) return Error{source_name, "the store holds no run", "nothing to copy"};
  }
  for (int64_t r : runs) {
    exists->Reset();
    exists->Bind(1, r);
    if (!exists->Step()) {
      return Error{source_name, fmt::format("the store holds no run {}", r),
                   fmt::format("see its runs: kscope --db {} runs", source_name)};
    }
  }
  if (std::set<int64_t>(runs.begin(), runs.end()).size() != runs.size()) {
    return Error{source_name, "a run is named twice", "name each run once"};
  }
  return runs;
}

}  // namespace

Result<std::vector<std::string>> RunTables(sql::Db& db) {
  auto q = db.Prepare(
      "SELECT m.name FROM main.sqlite_master m WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND (m.name = "
      "'run' OR EXISTS (SELECT 1 FROM pragma_table_info(m.name, 'main') p WHERE p.name = 'run_id')) ORDER BY m.rowid");
  if (!q.ok()) return q.error();
  std::vector<std::string> tables;
  while (q->Step()) tables.push_back(q->Text(0));
  KSCOPE_RETURN_IF_ERROR(q->status());
  return tables;
}

Status MapRuns(sql::Db& db, const std::string& source_name, const RunCopyOptions& options, RunCopyOutcome& out) {
  KSCOPE_RETURN_IF_ERROR(DropMaps(db));
  KSCOPE_RETURN_IF_ERROR(
      db.Exec("CREATE TEMP TABLE map_run (old INTEGER PRIMARY KEY, new INTEGER NOT NULL, copied INTEGER NOT NULL)"));
  auto runs = SourceRuns(db, source_name, options);
  if (!runs.ok()) return runs.error();
  auto next = db.Prepare("SELECT coalesce(max(id), 0) + 1 FROM main.run");
  auto taken = db.Prepare("SELECT 1 FROM main.run WHERE id = ?1");
  auto add = db.Prepare("INSERT OR IGNORE INTO temp.map_run (old, new, copied) VALUES (?1, ?2, ?3)");
  if (!next.ok() || !taken.ok() || !add.ok()) return Error{db.path(), db.ErrorMessage(), ""};
  int64_t id = next->Step() ? next->Int(0) : 1;
  for (int64_t r : *runs) {
    const int64_t to = options.keep_ids ? r : id++;
    taken->Reset();
    taken->Bind(1, to);
    if (taken->Step()) return Error{db.path(), fmt::format("holds a run {} already", to), "export into a new folder"};
    add->Reset();
    add->Bind(1, r).Bind(2, to).Bind(3, int64_t{1});
    KSCOPE_RETURN_IF_ERROR(add->Run());
    out.runs[r] = to;
  }
  for (const auto& [from, to] : options.earlier_runs) {
    add->Reset();
    add->Bind(1, from).Bind(2, to).Bind(3, int64_t{0});
    KSCOPE_RETURN_IF_ERROR(add->Run());
  }
  return Status::Ok();
}

Status RefuseDuplicates(sql::Db& db, const std::string& source_name) {
  auto q = db.Prepare(fmt::format(
      "SELECT s.run_id, s.path, m.run_id, coalesce(s.content_hash, '') FROM src.source_file s JOIN main.source_file m "
      "ON (s.content_hash IS NOT NULL AND m.content_hash = s.content_hash) OR ((s.content_hash IS NULL OR "
      "m.content_hash IS NULL) AND m.format = s.format AND m.bytes = s.bytes AND m.rows_read = s.rows_read AND "
      "m.rows_skipped = s.rows_skipped) WHERE s.run_id IN {} ORDER BY s.run_id, s.id LIMIT 1",
      kCopied));
  if (!q.ok()) return q.error();
  if (!q->Step()) return q->status();
  const std::string by = q->Text(3).empty() ? "its format, size and rows" : q->Text(3);
  return Error{source_name,
               fmt::format("run {} holds {}, whose content ({}) run {} of {} holds already", q->Int(0), q->Text(1), by,
                           q->Int(2), db.path()),
               "nothing was copied; leave that run out (name the others with --run), or add --force to copy it again"};
}

Status MapRowIds(sql::Db& db, bool keep_ids) {
  auto own = TablesWithOwnIds(db);
  if (!own.ok()) return own.error();
  for (const auto& t : *own) {
    KSCOPE_RETURN_IF_ERROR(db.Exec(
        fmt::format("CREATE TEMP TABLE {} (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)", Quoted("map_" + t))));
    const std::string shift =
        keep_ids ? "0"
                 : fmt::format(
                       "(SELECT coalesce(max(id), 0) FROM main.{0}) + 1 - (SELECT min(id) FROM src.{0} "
                       "WHERE run_id IN {1})",
                       Quoted(t), kCopied);
    KSCOPE_RETURN_IF_ERROR(
        db.Exec(fmt::format("INSERT INTO temp.{} (old, new) SELECT id, id + {} FROM src.{} "
                            "WHERE run_id IN {}",
                            Quoted("map_" + t), shift, Quoted(t), kCopied)));
  }
  return Status::Ok();
}

Status CopyTables(sql::Db& db) {
  auto tables = RunTables(db);
  auto own = TablesWithOwnIds(db);
  if (!tables.ok()) return tables.error();
  if (!own.ok()) return own.error();
  for (const auto& t : *tables) {
    auto cols = ColumnsOf(db, t);
    auto refs = ReferencesOf(db, t);
    if (!cols.ok()) return cols.error();
    if (!refs.ok()) return refs.error();
    std::string names, exprs;
    for (const auto& c : *cols) {
      names += (names.empty() ? "" : ", ") + Quoted(c.name);
      exprs += (exprs.empty() ? "" : ", ") + ColumnExpr(t, c, *refs, *own);
    }
    std::string where = fmt::format("x.{} IN {}", t == "run" ? "id" : "run_id", kCopied);
    if (t == "event_chunk") where += " AND NOT (" + StringChunkCondition() + ")";
    KSCOPE_RETURN_IF_ERROR(db.Exec(fmt::format("INSERT INTO main.{0} ({1}) SELECT {2} FROM src.{0} AS x WHERE {3}",
                                               Quoted(t), names, exprs, where)));
  }
  return Status::Ok();
}

Status NoteUnlinkedLaunches(sql::Db& db, RunCopyOutcome& out) {
  if (!db.TableExists("ncu_launch")) return Status::Ok();
  auto q = db.Prepare(fmt::format(
      "SELECT x.run_id, x.kernel_run, count(*) FROM src.ncu_launch x WHERE x.run_id IN {} AND x.kernel_run IS NOT NULL "
      "AND x.kernel_run NOT IN (SELECT old FROM temp.map_run) GROUP BY 1, 2 ORDER BY 1, 2",
      kCopied));
  if (!q.ok()) return q.error();
  while (q->Step()) {
    out.notes.push_back(
        fmt::format("run {}: {} profiled launch(es) were linked to kernels of run {}, which is not copied: those links "
                    "are left out "
                    "(copy that run too to keep them)",
                    out.runs.at(q->Int(0)), q->Int(2), q->Int(1)));
  }
  return q->status();
}

Status RemapCaptureLinks(sql::Db& db, const RunCopyOutcome& out) {
  auto runs = db.Prepare("SELECT old, new FROM temp.map_run");
  if (!runs.ok()) return runs.error();
  std::map<int64_t, int64_t> map;
  while (runs->Step()) map[runs->Int(0)] = runs->Int(1);
  auto read = db.Prepare("SELECT capture FROM main.run WHERE id = ?1");
  auto write = db.Prepare("UPDATE main.run SET capture = ?2 WHERE id = ?1");
  if (!read.ok() || !write.ok()) return Error{db.path(), db.ErrorMessage(), ""};
  for (const auto& [from, to] : out.runs) {
    read->Reset();
    read->Bind(1, to);
    if (!read->Step() || read->IsNull(0)) continue;
    auto capture = nlohmann::json::parse(read->Text(0), nullptr, false);
    if (!capture.is_object() || !capture.contains("discovery_run") || !capture["discovery_run"].is_number_integer()) {
      continue;
    }
    auto it = map.find(capture["discovery_run"].get<int64_t>());
    if (it != map.end() && it->second == capture["discovery_run"].get<int64_t>()) continue;
    if (it != map.end()) {
      capture["discovery_run"] = it->second;
    } else {
      capture.erase("discovery_run");
    }
    write->Reset();
    write->Bind(1, to).Bind(2, capture.dump());
    KSCOPE_RETURN_IF_ERROR(write->Run());
  }
  return Status::Ok();
}

Status CheckForeignKeys(sql::Db& db, const std::string& source_name) {
  auto q = db.Prepare("PRAGMA main.foreign_key_check");  // table, rowid, parent, fkid
  if (!q.ok()) return q.error();
  if (!q->Step()) return q->status();
  return Error{source_name, fmt::format("a copied row of {} has no {} row in the target", q->Text(0), q->Text(2)),
               "nothing was copied; the source store is damaged: check it with sqlite3 (PRAGMA foreign_key_check)"};
}

Status DropMaps(sql::Db& db) {
  auto q = db.Prepare(
      "SELECT name FROM temp.sqlite_master WHERE type = 'table' AND (name LIKE 'map\\_%' ESCAPE '\\' "
      "OR name = 'used_string')");
  if (!q.ok()) return q.error();
  std::vector<std::string> names;
  while (q->Step()) names.push_back(q->Text(0));
  for (const auto& n : names) KSCOPE_RETURN_IF_ERROR(db.Exec("DROP TABLE temp." + Quoted(n)));
  return Status::Ok();
}

}  // namespace kscope::import::copy
