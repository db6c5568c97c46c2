#include "store/store.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "store/migrate.h"
#include "store/schema.h"
#include "util/utc_now.h"

namespace kscope::store {

namespace fs = std::filesystem;

std::string DefaultDbPath() {
  if (const char* env = std::getenv("KSCOPE_DB"); env != nullptr && *env != '\0') return env;
  fs::path base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg != nullptr && *xdg != '\0') {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    base = fs::path(home) / ".local" / "share";
  } else {
    return "kscope.db";
  }
  return (base / "kscope" / "kscope.db").string();
}

namespace {

std::optional<std::pair<uint64_t, uint64_t>> FileId(const std::string& path) {
  struct stat st {};
  if (path.empty() || path == ":memory:" || ::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::make_pair(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
}

}  // namespace

Store::Store(sql::Db db) : db_(std::move(db)), file_id_(FileId(db_.path())) {}

Status Store::CheckStillThere() const {
  if (!file_id_ || FileId(db_.path()) == file_id_) return Status::Ok();
  return Error{db_.path(),
               "the database file was removed, moved or replaced while kscope wrote to it; what it wrote is lost",
               "keep the store in place during an import, and import again"};
}

Result<Store> Store::Open(const std::string& path, sql::OpenMode mode) {
  const bool existed = fs::exists(path);
  if (!existed && mode != sql::OpenMode::kCreate) {
    return Error{path, "no kscope database here", "import a file first (kscope import FILE) or pass --db PATH"};
  }
  if (!existed) {
    std::error_code ec;
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
  }
  auto db = sql::Db::Open(path, mode);
  if (!db.ok()) return db.error();
  Store store(std::move(db).value());
  if (mode != sql::OpenMode::kReadOnly) {
    KSCOPE_RETURN_IF_ERROR(store.db_.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  }
  KSCOPE_RETURN_IF_ERROR(store.db_.Exec("PRAGMA foreign_keys=ON; PRAGMA cache_size=-65536;"));
  // kCreate looks inside the write lock: another kscope may be creating the same file now.
  Status st = mode == sql::OpenMode::kCreate ? store.CreateSchema() : store.CheckSchema();
  if (!st.ok()) {
    Error e = st.error();
    if (e.where.empty()) e.where = path;
    return e;
  }
  return store;
}

Status Store::CreateSchema() {
  auto tx = sql::Transaction::Begin(db_);
  if (!tx.ok()) return tx.error();
  // A schema made meanwhile by another kscope is checked; a database of something else is
  // left alone.
  auto tables = db_.Prepare("SELECT count(*) FROM sqlite_master");
  if (!tables.ok()) return tables.error();
  if (!tables->Step()) return tables->status();
  if (tables->Int(0) > 0) return CheckSchema();
  KSCOPE_RETURN_IF_ERROR(db_.Exec(SchemaDdl()));
  auto ins = db_.Prepare("INSERT INTO kscope_meta(key, value) VALUES (?1, ?2)");
  if (!ins.ok()) return ins.error();
  KSCOPE_RETURN_IF_ERROR(ins->Bind(1, "schema_version").Bind(2, std::to_string(kSchemaVersion)).Run());
  KSCOPE_RETURN_IF_ERROR(ins->Bind(1, "created_by").Bind(2, "kscope").Run());
  return tx->Commit();
}

Status Store::CheckSchema() {
  auto version = StoredSchemaVersion(db_);
  if (!version.ok()) return version.error();
  if (*version == kSchemaVersion) return Status::Ok();
  if (*version == 0) {
    return Error{"", "kscope database without a schema version (it is empty, or another kscope is making it)",
                 "try again in a moment, or pass --db with a new path"};
  }
  if (*version > kSchemaVersion) {
    return Error{"",
                 fmt::format("written by a newer kscope (schema version {}; this kscope reads up to {})", *version,
                             kSchemaVersion),
                 "use that kscope, or a newer one"};
  }
  return Error{"",
               fmt::format("store of schema version {}, older than this kscope's ({}), not yet upgraded", *version,
                           kSchemaVersion),
               "open it with the kscope command once (it upgrades the store in place, keeping a copy)"};
}

Result<Store> Store::OpenForUpgrade(const std::string& path) {
  auto db = sql::Db::Open(path, sql::OpenMode::kReadWrite);
  if (!db.ok()) return db.error();
  Store store(std::move(db).value());
  // Foreign keys off for the upgrade's table rebuilds (they are checked before it commits).
  KSCOPE_RETURN_IF_ERROR(store.db_.Exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=OFF;"));
  return store;
}

Result<int64_t> Store::CreateRun(const Manifest& m) {
  auto st = db_.Prepare(
      "INSERT INTO run(imported_at, label, model, dtype, batch, tokens, gpu, driver, cuda_version, "
      "nsys_export_version, ncu_version, command, tags, nsys_tool_version) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
  if (!st.ok()) return st.error();
  nlohmann::json tags = m.tags;
  st->Bind(1, UtcNow())
      .Bind(2, m.label)
      .Bind(3, m.model)
      .Bind(4, m.dtype)
      .Bind(5, m.batch)
      .Bind(6, m.tokens)
      .Bind(7, m.gpu)
      .Bind(8, m.driver)
      .Bind(9, m.cuda_version)
      .Bind(10, m.nsys_export_version)
      .Bind(11, m.ncu_version)
      .Bind(12, m.command)
      .Bind(13, tags.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .Bind(14, m.nsys_tool_version);
  KSCOPE_RETURN_IF_ERROR(st->Run());
  return db_.LastInsertRowId();
}

Status Store::CompleteManifest(int64_t run_id, const Manifest& learned) {
  auto st = db_.Prepare(
      "UPDATE run SET gpu = coalesce(gpu, ?2), driver = coalesce(driver, ?3), "
      "cuda_version = coalesce(cuda_version, ?4), nsys_export_version = coalesce(nsys_export_version, ?5), "
      "ncu_version = coalesce(ncu_version, ?6), command = coalesce(command, ?7), "
      "nsys_tool_version = coalesce(nsys_tool_version, ?8) WHERE id = ?1");
  if (!st.ok()) return st.error();
  st->Bind(1, run_id)
      .Bind(2, learned.gpu)
      .Bind(3, learned.driver)
      .Bind(4, learned.cuda_version)
      .Bind(5, learned.nsys_export_version)
      .Bind(6, learned.ncu_version)
      .Bind(7, learned.command)
      .Bind(8, learned.nsys_tool_version);
  return st->Run();
}

Status Store::SetRunStatus(int64_t run_id, std::string_view status, const std::string& capture_json) {
  auto st = db_.Prepare("UPDATE run SET status = ?2, capture = coalesce(?3, capture) WHERE id = ?1");
  if (!st.ok()) return st.error();
  st->Bind(1, run_id).Bind(2, status);
  if (capture_json.empty()) {
    st->Bind(3, std::optional<std::string>());
  } else {
    st->Bind(3, capture_json);
  }
  return st->Run();
}

Result<std::string> Store::RunCapture(int64_t run_id) {
  auto q = db_.Prepare("SELECT coalesce(capture, '') FROM run WHERE id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  if (!q->Step())
    return Error{db_.path(), fmt::format("no run {} in this database", run_id), "list the runs with: kscope runs"};
  return q->Text(0);
}

Result<int64_t> Store::AddSourceFile(int64_t run_id, const SourceFile& f) {
  auto st = db_.Prepare(
      "INSERT INTO source_file(run_id, path, format, format_version, bytes, rows_read, rows_skipped, content_hash) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
  if (!st.ok()) return st.error();
  st->Bind(1, run_id)
      .Bind(2, f.path)
      .Bind(3, f.format)
      .Bind(4, f.format_version)
      .Bind(5, f.bytes)
      .Bind(6, f.rows_read)
      .Bind(7, f.rows_skipped)
      .Bind(8, f.content_hash);
  KSCOPE_RETURN_IF_ERROR(st->Run());
  return db_.LastInsertRowId();
}

Result<std::optional<int64_t>> Store::RunWithContent(std::string_view content_hash) {
  auto q = db_.Prepare("SELECT run_id FROM source_file WHERE content_hash = ?1 ORDER BY id LIMIT 1");
  if (!q.ok()) return q.error();
  q->Bind(1, content_hash);
  if (q->Step()) return std::optional<int64_t>(q->Int(0));
  KSCOPE_RETURN_IF_ERROR(q->status());
  return std::optional<int64_t>();
}

Status Store::SetSourceContentHash(int64_t source_id, std::string_view content_hash) {
  auto st = db_.Prepare("UPDATE source_file SET content_hash = ?2 WHERE id = ?1");
  if (!st.ok()) return st.error();
  st->Bind(1, source_id).Bind(2, content_hash);
  return st->Run();
}

Status Store::FinishSourceFile(int64_t source_id, const std::string& format_version, int64_t rows_read,
                               int64_t rows_skipped) {
  auto st = db_.Prepare("UPDATE source_file SET format_version = ?2, rows_read = ?3, rows_skipped = ?4 WHERE id = ?1");
  if (!st.ok()) return st.error();
  st->Bind(1, source_id).Bind(2, format_version).Bind(3, rows_read).Bind(4, rows_skipped);
  return st->Run();
}

Status Store::AddProblem(int64_t run_id, int64_t source_id, std::string_view location, std::string_view what,
                         std::string_view raw) {
  auto st =
      db_.Prepare("INSERT INTO import_problem(run_id, source_file_id, location, what, raw) VALUES (?1,?2,?3,?4,?5)");
  if (!st.ok()) return st.error();
  st->Bind(1, run_id).Bind(2, source_id).Bind(3, location).Bind(4, what).Bind(5, raw);
  return st->Run();
}

Result<int64_t> Store::InternString(std::string_view value) {
  const std::string key(value);
  if (auto it = string_cache_.find(key); it != string_cache_.end()) return it->second;
  auto ins = db_.Prepare("INSERT INTO string(value) VALUES (?1) ON CONFLICT(value) DO NOTHING");
  if (!ins.ok()) return ins.error();
  KSCOPE_RETURN_IF_ERROR(ins->Bind(1, value).Run());
  auto sel = db_.Prepare("SELECT id FROM string WHERE value = ?1");
  if (!sel.ok()) return sel.error();
  sel->Bind(1, value);
  if (!sel->Step()) return Error{"", "string table lost a value it just stored", ""};
  const int64_t id = sel->Int(0);
  string_cache_.emplace(key, id);
  return id;
}

Result<std::unordered_map<int64_t, std::string>> Store::Strings(const std::vector<int64_t>& ids) {
  std::unordered_map<int64_t, std::string> out;
  auto sel = db_.Prepare("SELECT value FROM string WHERE id = ?1");
  if (!sel.ok()) return sel.error();
  for (int64_t id : ids) {
    if (out.contains(id)) continue;
    sel->Bind(1, id);
    out[id] = sel->Step() ? sel->Text(0) : std::string();
    sel->Reset();
  }
  return out;
}

namespace {
RunInfo ReadRun(const sql::Stmt& q) {
  RunInfo r;
  r.id = q.Int(0);
  r.imported_at = q.Text(1);
  r.manifest.label = q.OptText(2);
  r.manifest.model = q.OptText(3);
  r.manifest.dtype = q.OptText(4);
  r.manifest.batch = q.OptInt(5);
  r.manifest.tokens = q.OptInt(6);
  r.manifest.gpu = q.OptText(7);
  r.manifest.driver = q.OptText(8);
  r.manifest.cuda_version = q.OptText(9);
  r.manifest.nsys_export_version = q.OptText(10);
  r.manifest.ncu_version = q.OptText(11);
  r.manifest.command = q.OptText(12);
  const auto tags = nlohmann::json::parse(q.Text(13), nullptr, false);
  if (tags.is_object()) {
    for (const auto& [k, v] : tags.items()) r.manifest.tags[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  r.kernels = q.Int(14);
  r.api_calls = q.Int(15);
  r.status = q.Text(16);
  r.manifest.nsys_tool_version = q.OptText(17);
  return r;
}
constexpr const char* kRunSelect =
    "SELECT r.id, r.imported_at, r.label, r.model, r.dtype, r.batch, r.tokens, r.gpu, r.driver, r.cuda_version, "
    "r.nsys_export_version, r.ncu_version, r.command, r.tags, "
    "coalesce((SELECT rows FROM event_stream WHERE run_id = r.id AND stream = 'kernel'), 0), "
    "coalesce((SELECT rows FROM event_stream WHERE run_id = r.id AND stream = 'api_call'), 0), r.status, "
    "r.nsys_tool_version FROM run r ";
}  // namespace

Result<std::vector<RunInfo>> Store::ListRuns() {
  auto q = db_.Prepare(std::string(kRunSelect) + "ORDER BY r.id");
  if (!q.ok()) return q.error();
  std::vector<RunInfo> runs;
  while (q->Step()) runs.push_back(ReadRun(*q));
  KSCOPE_RETURN_IF_ERROR(q->status());
  return runs;
}

Result<RunInfo> Store::GetRun(int64_t run_id) {
  auto q = db_.Prepare(std::string(kRunSelect) + "WHERE r.id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  if (!q->Step()) {
    return Error{db_.path(), fmt::format("no run {} in this database", run_id), "list the runs with: kscope runs"};
  }
  return ReadRun(*q);
}

Result<int64_t> Store::StreamRows(int64_t run_id, std::string_view stream) {
  auto q = db_.Prepare("SELECT rows FROM event_stream WHERE run_id = ?1 AND stream = ?2");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id).Bind(2, stream);
  return q->Step() ? q->Int(0) : int64_t{0};
}

Result<std::unordered_map<int64_t, std::string>> Store::ThreadNames(int64_t run_id) {
  auto q = db_.Prepare(
      "SELECT t.global_tid, s.value FROM thread_name t JOIN string s ON s.id = t.name_id WHERE t.run_id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  std::unordered_map<int64_t, std::string> names;
  while (q->Step()) names.emplace(q->Int(0), q->Text(1));
  KSCOPE_RETURN_IF_ERROR(q->status());
  return names;
}

}  // namespace kscope::store
