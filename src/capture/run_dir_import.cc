#include "capture/run_dir_import.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>

#include "capture/manifest_fields.h"
#include "capture/ncu_pass_import.h"
#include "capture/run_dir.h"
#include "util/bounded_json.h"
#include "util/temp_dir.h"

namespace kscope::capture {

namespace fs = std::filesystem;
using json = nlohmann::json;

// A private folder for the decompressed copies of one directory's .zst files (mkdtemp: a new
// name, mode 0700, so no other user's folder or link is ever written through), made when first
// needed and removed at the end.
class RunDirScratch {
 public:
  RunDirScratch() = default;
  RunDirScratch(const RunDirScratch&) = delete;
  RunDirScratch& operator=(const RunDirScratch&) = delete;
  ~RunDirScratch() = default;
  // `path` when it exists, else `path`.zst decompressed here; "" when neither exists.
  Result<std::string> Plain(const fs::path& path) {
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) return path.string();
    const fs::path zst = path.string() + ".zst";
    if (!fs::is_regular_file(zst, ec)) return std::string();
    KSCOPE_RETURN_IF_ERROR(MakeDir());
    // Keep the file's own name: the importer recognizes pages by it.
    const fs::path to = fs::path(dir_->path()) / path.parent_path().filename() / path.filename();
    fs::create_directories(to.parent_path(), ec);
    KSCOPE_RETURN_IF_ERROR(DecompressFile(zst, to));
    originals_[to.string()] = zst.string();
    return to.string();
  }
  // Each decompressed copy's original (the path the store records).
  [[nodiscard]] const std::map<std::string, std::string>& originals() const { return originals_; }

 private:
  Status MakeDir() {
    if (dir_) return Status::Ok();
    auto made = TempDir::Make("kscope-import-");
    if (!made.ok()) return made.error();
    dir_.emplace(std::move(made).value());
    return Status::Ok();
  }

  std::optional<TempDir> dir_;
  std::map<std::string, std::string> originals_;
};

namespace {

std::optional<std::string> Text(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return std::nullopt;
  return j[key].get<std::string>();
}

}  // namespace

// The store's description of the run, from the manifest (the user's words under "run"; the
// GPU and the tools as kscope profile found them), the command line's words on top.
store::Manifest RunDirManifest(const json& m, const store::Manifest& user) {
  store::Manifest r = RunDescriptionFromJson(m.value("run", json::object()));
  if (!m.contains("run") && m.contains("sweep_point") && m["sweep_point"].is_object()) {
    for (const auto& [k, v] : m["sweep_point"].items()) {
      if (v.is_string()) r.tags["sweep." + k] = v.get<std::string>();
    }
  }
  if (m.contains("gpu")) {
    r.gpu = Text(m["gpu"], "name");
    r.driver = Text(m["gpu"], "driver");
  }
  if (m.contains("tools")) {
    if (m["tools"].contains("nsys")) r.nsys_tool_version = Text(m["tools"]["nsys"], "version");
    if (m["tools"].contains("ncu")) r.ncu_version = Text(m["tools"]["ncu"], "version");
  }
  if (r.nsys_tool_version && r.nsys_tool_version->empty()) r.nsys_tool_version.reset();
  r.command = Text(m, "command");
  for (auto [field, value] : {std::pair{&r.label, &user.label}, {&r.model, &user.model}, {&r.dtype, &user.dtype}}) {
    if (*value) *field = *value;
  }
  if (user.batch) r.batch = user.batch;
  if (user.tokens) r.tokens = user.tokens;
  for (const auto& [k, v] : user.tags) r.tags[k] = v;
  return r;
}

namespace {

struct Pass {
  int number = 0;
  std::vector<int64_t> profiled_rows;
  int64_t launches = 0;            // what ncu profiled in it, as the manifest says
  bool promised = false;           // the manifest says it wrote a report
  std::vector<std::string> files;  // its raw and details pages, or its .ncu-rep
};

Error BadField(const fs::path& manifest, size_t step, const std::string& what) {
  return Error{manifest.string(), fmt::format("steps[{}]: {}", step, what),
               "the manifest was edited or damaged: use the one kscope profile wrote, or import the run's files "
               "themselves (kscope import FILE...)"};
}

// The ncu passes the manifest's steps name ("ncu pass N" with the nsys rows it profiled). A pass
// promised a report when it profiled launches, or, in a manifest that does not count them, when
// the run completed.
Result<std::vector<Pass>> PassesOf(const json& m, const fs::path& manifest) {
  const bool complete = m.contains("status") && m["status"] == "complete";
  std::vector<Pass> passes;
  for (size_t i = 0; i < m["steps"].size(); ++i) {
    const json& step = m["steps"][i];
    if (!step.is_object()) return BadField(manifest, i, "a step is not an object");
    if (!step.contains("name") || !step["name"].is_string()) return BadField(manifest, i, "a step has no name");
    const std::string name = step["name"].get<std::string>();
    if (!name.starts_with("ncu pass ") || !step.contains("profiled_kernel_rows")) continue;
    Pass pass;
    auto [p, err] = std::from_chars(name.data() + 9, name.data() + name.size(), pass.number);
    if (err != std::errc() || p != name.data() + name.size() || pass.number < 1) {
      return BadField(manifest, i, fmt::format("'{}' does not name a pass by a number from 1", name));
    }
    const json& rows = step["profiled_kernel_rows"];
    if (!rows.is_array() ||
        !std::all_of(rows.begin(), rows.end(), [](const json& r) { return r.is_number_integer(); })) {
      return BadField(manifest, i, "profiled_kernel_rows is not a list of whole numbers");
    }
    pass.profiled_rows = rows.get<std::vector<int64_t>>();
    if (step.contains("launches_profiled")) {
      if (!step["launches_profiled"].is_number_integer()) {
        return BadField(manifest, i, "launches_profiled is not a whole number");
      }
      pass.launches = step["launches_profiled"].get<int64_t>();
      pass.promised = pass.launches > 0;
    } else {
      pass.promised = complete;
    }
    passes.push_back(std::move(pass));
  }
  return passes;
}

}  // namespace

bool IsRunDir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "manifest.json", ec) || fs::is_regular_file(dir / "manifest.json.zst", ec);
}

Result<std::vector<fs::path>> FindRunDirs(const fs::path& path) {
  if (IsRunDir(path)) return std::vector<fs::path>{path};
  auto listed = RunDirsIn(path);
  if (!listed.ok()) return listed.error();
  std::vector<fs::path> dirs;
  for (const auto& [id, dir] : *listed) {
    if (IsRunDir(dir)) dirs.push_back(dir);
  }
  if (dirs.empty()) {
    return Error{path.string(), "neither a run directory (no manifest.json) nor a folder of run directories",
                 "name a directory that kscope profile wrote (profile.runs_dir/ID), or its runs folder"};
  }
  return dirs;
}

std::map<std::string, std::string> RunDirFiles::originals() const {
  return scratch ? scratch->originals() : std::map<std::string, std::string>{};
}

Result<json> ReadRunDirManifest(const fs::path& dir) {
  RunDirScratch scratch;
  auto manifest_path = scratch.Plain(dir / "manifest.json");
  if (!manifest_path.ok()) return manifest_path.error();
  if (manifest_path->empty()) {
    return Error{dir.string(), "not a run directory: it holds no manifest.json",
                 "name a directory that kscope profile wrote (profile.runs_dir/ID)"};
  }
  auto read = ReadJsonFile(*manifest_path, JsonBounds{}, "import the run's files themselves: kscope import FILE...");
  if (!read.ok()) {
    Error e = read.error();
    e.where = (dir / "manifest.json").string();
    return e;
  }
  json m = std::move(read).value();
  if (!m.is_object() || !m.contains("kscope_run") || !m.contains("steps")) {
    return Error{(dir / "manifest.json").string(), "not a manifest that kscope profile wrote (no kscope_run and steps)",
                 "import the run's files themselves: kscope import FILE..."};
  }
  KSCOPE_RETURN_IF_ERROR(CheckManifestFields(m, (dir / "manifest.json").string()));
  return m;
}

Result<RunDirFiles> ReadRunDir(const fs::path& dir, bool partial) {
  RunDirFiles read_dir;
  read_dir.scratch = std::make_shared<RunDirScratch>();
  RunDirScratch& scratch = *read_dir.scratch;
  auto read = ReadRunDirManifest(dir);
  if (!read.ok()) return read.error();
  json m = std::move(read).value();
  RunDirOutcome& out = read_dir.out;
  out.dir = dir.string();
  out.profiled_run = m["kscope_run"].is_number_integer() ? m["kscope_run"].get<int64_t>() : 0;
  out.status = Text(m, "status").value_or("incomplete");

  // The files, in the order kscope profile imported them: the discovery export, then each
  // ncu pass's pages (or its report, where the pages were not exported).
  read_dir.own_discovery = !m.contains("discovery_run");
  if (read_dir.own_discovery) {
    auto sqlite = scratch.Plain(dir / "nsys" / "discovery.sqlite");
    if (!sqlite.ok()) return sqlite.error();
    read_dir.nsys = *sqlite;
  }
  auto passes = PassesOf(m, dir / "manifest.json");
  if (!passes.ok()) return passes.error();
  for (Pass& pass : *passes) {
    const fs::path base = dir / "ncu" / fmt::format("pass{}", pass.number);
    for (const char* page : {"_raw.csv", "_details.csv"}) {
      auto f = scratch.Plain(base.string() + page);
      if (!f.ok()) return f.error();
      if (!f->empty()) pass.files.push_back(*f);
    }
    if (pass.files.empty()) {
      auto rep = scratch.Plain(base.string() + ".ncu-rep");
      if (!rep.ok()) return rep.error();
      if (!rep->empty()) pass.files.push_back(*rep);
    }
    if (pass.files.empty() && pass.promised) {
      const std::string what =
          fmt::format("ncu pass {} profiled {} launch(es), and its report ({}.ncu-rep, or its pages) is missing",
                      pass.number, pass.launches, fs::relative(base, dir).string());
      if (!partial) {
        return Error{dir.string(), what,
                     "copy the whole run directory, or import it with --partial to keep the rest, marked incomplete"};
      }
      out.notes.push_back(what);
      out.status = "incomplete";
    }
    if (!pass.files.empty()) read_dir.passes.push_back({pass.number, pass.profiled_rows, pass.files});
  }
  if (read_dir.nsys.empty() && read_dir.passes.empty()) {
    return Error{dir.string(),
                 "the run directory holds no nsys export and no ncu report or page (the profile stopped early?)",
                 "see its manifest.json and logs/; profile the workload again"};
  }
  read_dir.manifest = std::move(m);
  return read_dir;
}

namespace {

// The run's capture manifest in this store: the directory's, with where it came from and the
// discovery run as numbered here.
std::string CaptureOf(json m, const fs::path& dir, const RunDirOutcome& out, int64_t targeted_discovery) {
  std::error_code ec;
  m["imported_from"] = {{"dir", fs::absolute(dir, ec).string()}, {"run", out.profiled_run}};
  m["run_dir"] = fs::absolute(dir, ec).string();  // where kscope report writes
  if (targeted_discovery != 0) m["discovery_run"] = targeted_discovery;
  for (const auto& note : out.notes) m["notes"].push_back(note);
  return m.dump();
}

}  // namespace

Result<RunDirOutcome> ImportRunDir(store::Store& store, const fs::path& dir, const store::Manifest& user,
                                   const import::ImportOptions& options, std::map<int64_t, int64_t>& runs) {
  auto read_dir = ReadRunDir(dir, options.partial);
  if (!read_dir.ok()) return read_dir.error();
  const json& m = read_dir->manifest;
  RunDirOutcome out = read_dir->out;
  const bool own_discovery = read_dir->own_discovery;
  std::vector<std::string> discovery_export;
  if (!read_dir->nsys.empty()) discovery_export.push_back(read_dir->nsys);
  // The run holding the kernels the passes were planned on: this one, or an earlier
  // directory's run of this call; without it, the launches stay unlinked.
  int64_t discovery = 0;
  if (!own_discovery && m["discovery_run"].is_number_integer()) {
    auto it = runs.find(m["discovery_run"].get<int64_t>());
    if (it != runs.end()) discovery = it->second;
  }
  const bool plan = own_discovery || discovery != 0;
  std::vector<NcuPassFiles> planned;
  // A plan made from a trace run filtered ncu on function names: linked by matching (selection.h).
  const bool by_matching = m.contains("selection") && m["selection"].is_object() &&
                           m["selection"].contains("kernel_name_base") &&
                           m["selection"]["kernel_name_base"] == "function";
  for (const RunDirPass& pass : read_dir->passes) {
    planned.push_back({pass.number, pass.files, pass.profiled_rows, by_matching});
    if (!plan) {
      out.notes.push_back(fmt::format(
          "ncu pass {}: its discovery run {} is not in this import, so its launches are not linked to kernels",
          pass.number, m["discovery_run"].dump()));
    }
  }

  import::ImportOptions opts = options;
  opts.manifest = RunDirManifest(m, user);
  opts.run_per_file = false;
  opts.into_run = 0;
  opts.refuse_unrelated_ncu = false;  // the plan says which kernel each launch is (a targeted run has none)
  opts.recorded_paths = read_dir->originals();
  // The run's capture manifest goes in with its files, in the same transaction.
  auto record = [&](const std::vector<import::FileOutcome>& done) -> Status {
    out.run_id = done.front().run_id;
    return store.SetRunStatus(out.run_id, out.status, CaptureOf(m, dir, out, own_discovery ? 0 : discovery));
  };
  auto imported = ImportNcuPasses(store, discovery_export, planned, discovery, opts, record, plan);
  if (!imported.ok()) {
    Error e = imported.error();
    // Name the file the user has, not its decompressed copy.
    for (const auto& [copy, original] : read_dir->originals()) {
      if (e.where == copy) e.where = original;
    }
    return e;
  }
  out.files = static_cast<int64_t>(imported->files.size());
  for (const auto& f : imported->files) out.rows += f.rows_read;
  for (const auto& pass : imported->passes) out.linked += pass.links.planned;
  runs[out.profiled_run] = out.run_id;
  return out;
}

}  // namespace kscope::capture
