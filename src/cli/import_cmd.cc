// kscope import FILE... | DIR...: profiler outputs into the store, as one transaction; run
// directories that kscope profile wrote (or folders of them), each as a run of its own.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

#include "capture/job_import.h"
#include "capture/run_dir_import.h"
#include "cli/commands.h"
#include "import/import_files.h"
#include "import/merge.h"
#include "import/run_export.h"
#include "import/store_upgrade.h"
#include "store/checkpoint.h"
#include "util/interrupt_note.h"

namespace kscope::cli {

namespace {
struct ImportArgs {
  std::vector<std::string> files;
  ManifestArgs manifest;
  bool run_per_file = false;
  bool force = false;
  size_t threads = 0;
  int64_t into_run = 0;
  bool via_ncu = false;
  bool rederive = false;
  bool partial = false;
  std::string job;  // --job: the run directories given are one job's, imported as one run
};

// kscope import --rederive [--run N]: the gaps of runs an upgrade brought from an older store.
int RederiveGaps(store::Store& store, int64_t run) {
  auto outcomes = import::Rederive(store, run != 0 ? std::vector<int64_t>{run} : std::vector<int64_t>{});
  if (!outcomes.ok()) return Fail(outcomes.error());
  size_t open = 0;
  for (const auto& o : *outcomes) {
    if (o.filled) {
      std::cout << fmt::format("run {}: {} filled from its source files\n", o.run_id, o.what);
    } else {
      ++open;
      std::cout << fmt::format("run {}: {} still missing: {}\n", o.run_id, o.what, o.why_not);
    }
  }
  std::cout << fmt::format("{} of {} gaps filled\n", outcomes->size() - open, outcomes->size());
  return 0;
}

// A folder that kscope export wrote: its run's rows copied in (import/run_export.h).
bool ImportExported(store::Store& store, const std::filesystem::path& dir, const store::Manifest& user,
                    const import::ImportOptions& options, std::map<int64_t, int64_t>& runs) {
  auto r = import::ImportExportedRun(store, dir, user, !options.refuse_known_content, runs);
  if (!r.ok()) {
    Fail(r.error());
    return false;
  }
  std::cout << fmt::format("imported {} as run {}: exported run {}, {} source file(s) with it\n", dir.string(),
                           r->run_id, r->exported_id, r->files);
  for (const auto& n : r->notes) std::cout << "  note: " << n << "\n";
  return true;
}

void SayImported(const capture::RunDirOutcome& r) {
  std::cout << fmt::format("imported {} as run {}: {} files, {} rows, {} launches linked, {}\n", r.dir, r.run_id,
                           r.files, r.rows, r.linked, r.status);
  for (const auto& n : r.notes) std::cout << "  note: " << n << "\n";
}

// Each run directory in turn, each in its own transaction, except that the directories of one
// job (the job id their manifests record, or --job) make one run together: a directory or job
// that fails is said and left out, the others are kept. Returns the exit code (1 when any failed).
int ImportDirs(store::Store& store, const std::vector<std::string>& args, const store::Manifest& user,
               const import::ImportOptions& options, const std::string& job) {
  std::vector<std::filesystem::path> dirs;
  for (const auto& a : args) {
    auto found = capture::FindRunDirs(a);
    if (!found.ok()) return Fail(found.error());
    dirs.insert(dirs.end(), found->begin(), found->end());
  }
  auto groups = capture::GroupByJob(dirs, job);
  if (!groups.ok()) return Fail(groups.error());
  std::map<int64_t, int64_t> runs;  // profiled run id -> run here
  size_t failed = 0;
  for (const auto& group : *groups) {
    if (group.size() == 1 && import::IsExportedRun(group.front())) {
      failed += ImportExported(store, group.front(), user, options, runs) ? 0 : 1;
      continue;
    }
    auto r = group.size() == 1 && job.empty()
                 ? capture::ImportRunDir(store, group.front(), user, options, runs)
                 : capture::ImportJobRunDirs(store, group, job.empty() ? *capture::JobIdOf(group.front()) : job, user,
                                             options);
    if (!r.ok()) {
      Fail(r.error());
      failed += group.size();
      continue;
    }
    SayImported(*r);
  }
  if (dirs.size() > 1 || failed > 0) {
    std::cout << fmt::format("{} of {} run directories imported\n", dirs.size() - failed, dirs.size());
  }
  return failed > 0 ? 1 : 0;
}

// The import itself (files, run directories, or --rederive); the exit code.
int ImportInto(ImportArgs a, const store::Manifest& manifest, const std::string& db_path) {
  if (a.into_run == kLastRun) {  // the newest run of a store that is there already
    auto existing = import::OpenStore(db_path, sql::OpenMode::kReadOnly);
    if (!existing.ok()) return Fail(existing.error());
    auto run = ResolveRun(*existing, a.into_run);
    if (!run.ok()) return Fail(run.error());
    a.into_run = *run;
  }
  auto store = import::OpenStore(db_path, sql::OpenMode::kCreate);
  if (!store.ok()) return Fail(store.error());
  if (a.rederive) return RederiveGaps(*store, a.into_run);
  InstallInterruptNote();  // an interrupt after the commit says the run is complete
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> dirs, files;
  for (const auto& f : a.files) {
    std::error_code ec;
    (std::filesystem::is_directory(f, ec) ? dirs : files).push_back(f);
  }
  if (!dirs.empty() && (!files.empty() || a.into_run != 0 || a.run_per_file)) {
    return Fail(Error{dirs.front(), "run directories are imported each as a run of their own",
                      "import them in a call of their own, without --run and --run-per-file"});
  }
  import::ImportOptions options;
  options.manifest = manifest;
  options.run_per_file = a.run_per_file;
  options.threads = a.threads;
  options.into_run = a.into_run;
  options.refuse_known_content = !a.force;
  options.via_ncu = a.via_ncu;
  options.partial = a.partial;
  options.refuse_unrelated_ncu = !a.force;
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (!dirs.empty()) {
    int exit_code = ImportDirs(*store, dirs, manifest, options, a.job);
    if (auto there = store->CheckStillThere(); !there.ok()) exit_code = Fail(there.error());
    if (auto moved = store::CheckpointCommitted(store->db(), "the imported runs"); !moved.ok()) {
      exit_code = Fail(moved.error());
    }
    if (exit_code == 0) std::cout << fmt::format("{:.2f} s into {}\n", seconds(), db_path);
    return exit_code;
  }
  for (const auto& f : files) {
    if (import::IsKscopeStore(f)) {
      return Fail(Error{f, "a kscope store, not a profiler output",
                        fmt::format("copy its runs into this store with: kscope merge {}", f)});
    }
  }
  auto outcomes = import::ImportFiles(*store, a.files, options);
  if (!outcomes.ok()) return Fail(outcomes.error());
  if (auto there = store->CheckStillThere(); !there.ok()) return Fail(there.error());
  int exit_code = 0;
  std::set<int64_t> runs;
  for (const auto& o : *outcomes) runs.insert(o.run_id);
  if (auto moved = store::CheckpointCommitted(store->db(), fmt::format("the import (run {})", fmt::join(runs, ", ")));
      !moved.ok()) {
    exit_code = Fail(moved.error());  // the runs are safe in the log; the line says so
  }
  const double secs = seconds();
  for (const auto& o : *outcomes) {
    std::cout << fmt::format("imported {} as run {}: {} rows", o.path, o.run_id, o.rows_read);
    if (o.rows_skipped > 0)
      std::cout << fmt::format(", {} bad rows skipped (see table import_problem)", o.rows_skipped);
    if (o.shared_correlations > 0) {
      std::cout << fmt::format(
          ", {} CUDA calls repeat an earlier call's correlation id (their GPU work is linked to the first; see "
          "table import_problem)",
          o.shared_correlations);
    }
    std::cout << "\n";
  }
  std::cout << fmt::format("{:.2f} s into {}\n", secs, db_path);
  return exit_code;
}

// Removes the store at `path` (and its -wal and -shm) when it holds no run: what a failed
// first import made. A store another process filled meanwhile is kept.
void RemoveIfNoRuns(const std::string& path) {
  {
    auto store = store::Store::Open(path, sql::OpenMode::kReadWrite);
    if (!store.ok()) return;
    auto runs = store->db().Prepare("SELECT count(*) FROM run");
    if (!runs.ok() || !runs->Step() || runs->Int(0) != 0) return;
  }
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
}

}  // namespace

void RegisterImport(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand("import", "Import nsys SQLite exports and ncu results into the kscope database");
  cmd->add_option("files", args->files,
                  "nsys SQLite exports (nsys export --type sqlite), ncu reports (.ncu-rep, read natively) or their CSV "
                  "pages (ncu --import R --page raw|details --csv); or run directories that kscope profile wrote (or "
                  "folders of them, e.g. profile.runs_dir), each a run of its own");
  cmd->add_option("--run", args->into_run,
                  "add the files to this existing run (e.g. ncu results to its nsys run; last: the newest)")
      ->transform(LastAsRunId);
  AddManifestOptions(cmd, args->manifest);
  cmd->add_flag("--run-per-file", args->run_per_file, "make one run per file instead of one for all");
  cmd->add_flag("--force", args->force,
                "import a file again although the database holds one of the same content, or ncu results into a run "
                "none of whose kernels they match");
  cmd->add_option("--threads", args->threads, "reader threads per file (default: one per core)");
  cmd->add_flag("--via-ncu", args->via_ncu,
                "read .ncu-rep reports through the installed ncu's raw and details pages instead of natively");
  cmd->add_flag("--partial", args->partial,
                "import a run directory that lacks an ncu report its manifest names, marked incomplete, instead of "
                "refusing it");
  cmd->add_option("--job", args->job,
                  "the run directories given are the nodes (or ranks) of one job: import them as one run, whatever "
                  "job id their manifests record (by default, directories whose manifests record the same job id, "
                  "from kscope profile --job, SLURM_JOB_ID or TORCHELASTIC_RUN_ID, make one run)");
  cmd->add_flag("--rederive", args->rederive,
                "fill what runs upgraded from an older store lack (thread names, content hashes) from their source "
                "files, where those still exist (all runs, or --run N)");
  cmd->callback([args, &global, &exit_code] {
    if (args->files.empty() != args->rederive) {
      exit_code = Fail(Error{"", args->rederive ? "--rederive takes no files" : "no files to import",
                             args->rederive ? "give the run with --run N, or none for every run"
                                            : "give nsys exports, ncu reports or run directories"});
      return;
    }
    auto manifest = ToManifest(args->manifest);
    if (!manifest.ok()) {
      exit_code = Fail(manifest.error());
      return;
    }
    // A store this call creates and that holds no run when it fails is removed again: a failed
    // first import leaves nothing behind.
    std::error_code ec;
    const bool created = !std::filesystem::exists(std::filesystem::symlink_status(global.DbPath(), ec));
    exit_code = ImportInto(*args, *manifest, global.DbPath());
    if (exit_code != 0 && created) RemoveIfNoRuns(global.DbPath());
  });
}

}  // namespace kscope::cli
