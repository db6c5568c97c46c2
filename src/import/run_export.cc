#include "import/run_export.h"

#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "import/run_copy.h"
#include "store/migrate.h"
#include "store/schema.h"
#include "util/atomic_file.h"
#include "util/file_hash.h"
#include "util/temp_dir.h"
#include "util/utc_now.h"

namespace kscope::import {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kExportFormat = 1;
constexpr const char* kRowsFile = "run.kscope.db";

// The runs whose kernels the launches of `run` are linked to (a targeted run's discovery run).
Result<std::vector<int64_t>> LinkedRuns(store::Store& store, int64_t run) {
  auto q = store.db().Prepare(
      "SELECT DISTINCT kernel_run FROM ncu_launch WHERE run_id = ?1 AND kernel_run IS NOT NULL AND kernel_run != ?1 "
      "AND kernel_run IN (SELECT id FROM run) ORDER BY 1");
  if (!q.ok()) return q.error();
  q->Bind(1, run);
  std::vector<int64_t> runs;
  while (q->Step()) runs.push_back(q->Int(0));
  KSCOPE_RETURN_IF_ERROR(q->status());
  return runs;
}

// The runs named, each existing, with the runs they link to, in id order.
Result<std::set<int64_t>> RunsToExport(store::Store& store, const std::vector<int64_t>& named,
                                       std::map<int64_t, std::vector<std::string>>& notes) {
  std::set<int64_t> runs(named.begin(), named.end());
  for (int64_t r : named) {
    auto run = store.GetRun(r);
    if (!run.ok()) return run.error();
    auto linked = LinkedRuns(store, r);
    if (!linked.ok()) return linked.error();
    for (int64_t l : *linked) {
      if (runs.insert(l).second) {
        notes[l].push_back(fmt::format("exported too: run {}'s profiled launches are linked to its kernels", r));
      }
    }
  }
  return runs;
}

// Copies the run's source files that are still where the store says, of the size (and content,
// where the store kept its hash) it recorded; the others are said in notes.
Result<json> CopySourceFiles(store::Store& store, int64_t run, const fs::path& into, ExportedRun& out) {
  auto q = store.db().Prepare(
      "SELECT id, path, bytes, coalesce(content_hash, '') FROM source_file WHERE run_id = ?1 "
      "ORDER BY id");
  if (!q.ok()) return q.error();
  q->Bind(1, run);
  json files = json::array();
  while (q->Step()) {
    const std::string path = q->Text(1);
    const std::string hash = q->Text(3);
    std::error_code ec;
    const bool there = fs::is_regular_file(path, ec) && static_cast<int64_t>(fs::file_size(path, ec)) == q->Int(2);
    auto now = there && !hash.empty() ? FileContentHash(path) : Result<std::string>(hash);
    if (!there || !now.ok() || *now != hash) {
      out.notes.push_back(fmt::format("left out {}: {}; its rows are exported", path,
                                      there ? "its content changed since the import" : "it is no longer there"));
      continue;
    }
    const std::string name = fmt::format("files/{}-{}", q->Int(0), fs::path(path).filename().string());
    fs::create_directories(into / "files", ec);
    fs::copy_file(path, into / name, ec);
    if (ec) return Error{path, fmt::format("cannot copy it into the export: {}", ec.message()), "free some space"};
    files.push_back({{"source_file", q->Int(0)}, {"file", name}, {"path", path}, {"bytes", q->Int(2)}});
    if (!hash.empty()) files.back()["content_hash"] = hash;
    ++out.files;
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  return files;
}

// Where the copy reads the store from: the store itself, or, for a user who may not write it or
// its folder (SQLite then cannot open its -shm beside it), a private copy of it made through the
// reader's own connection.
class ReadableSource {
 public:
  static Result<ReadableSource> Of(store::Store& store) {
    const std::string path = store.db().path();
    const std::string folder = fs::absolute(path).parent_path().string();
    if (::access(path.c_str(), W_OK) == 0 && ::access(folder.c_str(), W_OK) == 0) return ReadableSource(path);
    auto dir = TempDir::Make("kscope-export-");
    if (!dir.ok()) return dir.error();
    ReadableSource source(dir->path() + "/store.db");
    KSCOPE_RETURN_IF_ERROR(store::CopyDatabase(store.db(), source.path_));
    source.dir_.emplace(std::move(dir).value());
    return source;
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  explicit ReadableSource(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::optional<TempDir> dir_;
};

// The run's rows alone in a store of their own, under the run's own id.
Status WriteRows(store::Store& store, const std::string& source, int64_t run, const std::set<int64_t>& exported,
                 const fs::path& into) {
  auto rows = store::Store::Open((into / kRowsFile).string(), sql::OpenMode::kCreate);
  if (!rows.ok()) return rows.error();
  RunCopyOptions options;
  options.runs = {run};
  options.keep_ids = true;
  options.refuse_duplicates = false;
  for (int64_t r : exported) options.earlier_runs[r] = r;  // links to runs exported beside it stay
  options.earlier_runs.erase(run);
  auto copied = CopyRuns(*rows, source, store.db().path(), options);
  if (!copied.ok()) return copied.error();
  return rows->db().Exec("PRAGMA journal_mode=DELETE");  // one file, nothing beside it
}

Result<ExportedRun> ExportOne(store::Store& store, const std::string& source, int64_t run,
                              const std::set<int64_t>& exported, const ExportOptions& options) {
  ExportedRun out;
  out.run_id = run;
  out.dir = (fs::path(options.out_dir) / std::to_string(run)).string();
  auto staging = TempDir::MakeIn(options.out_dir, fmt::format(".{}.kscope-", run));
  if (!staging.ok()) return staging.error();
  const fs::path into = staging->path();
  KSCOPE_RETURN_IF_ERROR(WriteRows(store, source, run, exported, into));
  json files = json::array();
  if (options.with_files) {
    auto copied = CopySourceFiles(store, run, into, out);
    if (!copied.ok()) return copied.error();
    files = std::move(copied).value();
  }
  auto info = store.GetRun(run);
  if (!info.ok()) return info.error();
  json manifest = {{"kscope_export",
                    {{"format", kExportFormat},
                     {"schema_version", store::kSchemaVersion},
                     {"exported_at", UtcNow()},
                     {"from_store", fs::absolute(store.db().path()).string()},
                     {"run", run},
                     {"store", kRowsFile},
                     {"files", files}}},
                   {"run", {{"label", info->manifest.label.value_or("")}, {"imported_at", info->imported_at}}}};
  KSCOPE_RETURN_IF_ERROR(WriteFileAtomically(into / "manifest.json", manifest.dump(2) + "\n"));
  // mkdtemp made it for this user alone; the export is for others too (as a folder kscope makes).
  std::error_code ec;
  fs::permissions(into,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                      fs::perms::others_exec,
                  ec);
  KSCOPE_RETURN_IF_ERROR(staging->RenameTo(out.dir));
  return out;
}

}  // namespace

Result<std::vector<ExportedRun>> ExportRuns(store::Store& store, const ExportOptions& options) {
  std::map<int64_t, std::vector<std::string>> notes;
  auto runs = RunsToExport(store, options.runs, notes);
  if (!runs.ok()) return runs.error();
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (!fs::is_directory(options.out_dir, ec)) {
    return Error{options.out_dir, "cannot make the folder", "name a folder kscope can write"};
  }
  for (int64_t r : *runs) {
    if (fs::exists(fs::path(options.out_dir) / std::to_string(r), ec)) {
      return Error{(fs::path(options.out_dir) / std::to_string(r)).string(), "exists already; nothing was exported",
                   "export into another folder, or remove it first"};
    }
  }
  auto source = ReadableSource::Of(store);
  if (!source.ok()) return source.error();
  std::vector<ExportedRun> done;
  for (int64_t r : *runs) {
    auto one = ExportOne(store, source->path(), r, *runs, options);
    if (!one.ok()) return one.error();
    one->notes.insert(one->notes.begin(), notes[r].begin(), notes[r].end());
    done.push_back(std::move(one).value());
  }
  return done;
}

}  // namespace kscope::import
