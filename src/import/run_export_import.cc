// kscope import DIR of a folder that kscope export wrote (import/run_export.h).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "import/merge.h"
#include "import/run_copy.h"
#include "import/run_export.h"
#include "util/bounded_json.h"

namespace kscope::import {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kFix = "export the run again with kscope export, or import its files themselves";

struct ExportManifest {
  int64_t run = 0;
  std::string rows_file;
  json files = json::array();
};

bool PlainName(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

// files/<name>, nothing that leaves the folder.
bool InsideFiles(const std::string& file) { return file.starts_with("files/") && PlainName(file.substr(6)); }

Result<ExportManifest> ReadManifest(const fs::path& dir) {
  const std::string path = (dir / "manifest.json").string();
  auto read = ReadJsonFile(path, JsonBounds{}, kFix);
  if (!read.ok()) return read.error();
  const json& m = *read;
  if (!m.is_object() || !m.contains("kscope_export") || !m["kscope_export"].is_object()) {
    return Error{path, "not the manifest of an exported run (no kscope_export)", kFix};
  }
  const json& e = m["kscope_export"];
  if (!e.contains("format") || e["format"] != 1) {
    return Error{path,
                 fmt::format("kscope_export.format is {}, and this kscope reads format 1",
                             e.contains("format") ? e["format"].dump() : "missing"),
                 "import it with the kscope that exported it, or a newer one"};
  }
  ExportManifest out;
  if (!e.contains("run") || !e["run"].is_number_integer()) {
    return Error{path, "kscope_export.run is not a run id", kFix};
  }
  out.run = e["run"].get<int64_t>();
  if (!e.contains("store") || !e["store"].is_string() || !PlainName(e["store"].get<std::string>())) {
    return Error{path, "kscope_export.store does not name a file in the folder", kFix};
  }
  out.rows_file = e["store"].get<std::string>();
  if (e.contains("files")) {
    if (!e["files"].is_array()) return Error{path, "kscope_export.files is not a list", kFix};
    for (const json& f : e["files"]) {
      if (!f.is_object() || !f.contains("source_file") || !f["source_file"].is_number_integer() ||
          !f.contains("file") || !f["file"].is_string() || !InsideFiles(f["file"].get<std::string>())) {
        return Error{path, "an entry of kscope_export.files lacks its source_file id or names a file outside files/",
                     kFix};
      }
    }
    out.files = e["files"];
  }
  return out;
}

// What the command line says about the run (--label, --tag, ...), over what it said.
Status ApplyUserManifest(sql::Db& db, int64_t run, const store::Manifest& user) {
  auto q = db.Prepare(
      "UPDATE run SET label = coalesce(?2, label), model = coalesce(?3, model), dtype = coalesce(?4, dtype), "
      "batch = coalesce(?5, batch), tokens = coalesce(?6, tokens) WHERE id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, run).Bind(2, user.label).Bind(3, user.model).Bind(4, user.dtype).Bind(5, user.batch).Bind(6, user.tokens);
  KSCOPE_RETURN_IF_ERROR(q->Run());
  if (user.tags.empty()) return Status::Ok();
  auto read = db.Prepare("SELECT tags FROM run WHERE id = ?1");
  if (!read.ok()) return read.error();
  read->Bind(1, run);
  json tags = read->Step() ? json::parse(read->Text(0), nullptr, false) : json::object();
  if (!tags.is_object()) tags = json::object();
  for (const auto& [k, v] : user.tags) tags[k] = v;
  auto write = db.Prepare("UPDATE run SET tags = ?2 WHERE id = ?1");
  if (!write.ok()) return write.error();
  write->Bind(1, run).Bind(2, tags.dump());
  return write->Run();
}

// The run's source files that travelled with it, read from the folder from now on.
Result<int64_t> PointAtFiles(sql::Db& db, const fs::path& dir, const json& files) {
  auto q = db.Prepare(
      "UPDATE main.source_file SET path = ?2 WHERE id = (SELECT new FROM temp.map_source_file WHERE "
      "old = ?1)");
  if (!q.ok()) return q.error();
  int64_t n = 0;
  for (const json& f : files) {
    std::error_code ec;
    const fs::path file = fs::absolute(dir / f["file"].get<std::string>(), ec);
    if (!fs::is_regular_file(file, ec)) continue;
    q->Reset();
    q->Bind(1, f["source_file"].get<int64_t>()).Bind(2, file.lexically_normal().string());
    KSCOPE_RETURN_IF_ERROR(q->Run());
    n += sqlite3_changes(db.raw()) > 0 ? 1 : 0;
  }
  return n;
}

}  // namespace

bool IsExportedRun(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "manifest.json", ec)) return false;
  auto read = ReadJsonFile((dir / "manifest.json").string(), JsonBounds{}, kFix);
  return read.ok() && read->is_object() && read->contains("kscope_export");
}

Result<ImportedExport> ImportExportedRun(store::Store& store, const fs::path& dir, const store::Manifest& user,
                                         bool force, std::map<int64_t, int64_t>& earlier) {
  auto manifest = ReadManifest(dir);
  if (!manifest.ok()) return manifest.error();
  auto source = SourceStore::Open((dir / manifest->rows_file).string());
  if (!source.ok()) return source.error();
  RunCopyOptions options;
  options.earlier_runs = earlier;
  options.earlier_runs.erase(manifest->run);
  options.refuse_duplicates = !force;
  ImportedExport out;
  out.exported_id = manifest->run;
  auto copied = CopyRuns(store, source->path(), dir.string(), options, [&](const RunCopyOutcome& c) -> Status {
    if (c.runs.size() != 1 || !c.runs.contains(manifest->run)) {
      return Error{(dir / manifest->rows_file).string(), fmt::format("does not hold run {} alone", manifest->run),
                   kFix};
    }
    out.run_id = c.runs.at(manifest->run);
    KSCOPE_RETURN_IF_ERROR(ApplyUserManifest(store.db(), out.run_id, user));
    auto files = PointAtFiles(store.db(), dir, manifest->files);
    if (!files.ok()) return files.error();
    out.files = *files;
    return Status::Ok();
  });
  if (!copied.ok()) return copied.error();
  KSCOPE_RETURN_IF_ERROR(store.CheckStillThere());
  out.notes = copied->notes;
  earlier[out.exported_id] = out.run_id;
  return out;
}

}  // namespace kscope::import
