#include "import/import_files.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "analysis/kernels/launch_figures.h"
#include "analysis/kernels/ncu_timeline_link.h"
#include "analysis/timeline/nsys_summaries.h"
#include "analysis/timeline/ranks.h"
#include "import/importer.h"
#include "import/ncu_run_check.h"
#include "util/file_hash.h"
#include "util/interrupt_note.h"

namespace kscope::import {

namespace fs = std::filesystem;

namespace {

// A bulk load: the writers assign every key they insert (run and launch ids, string ids), so
// SQLite's check of each row against its parent finds nothing and costs a seventh of a large
// ncu report's import (45,000 metric rows, two lookups each). The checks are off for the
// import's transaction and on again after it (SQLite takes the pragma only outside one); the
// tests check every key after importing each kind of file (PRAGMA foreign_key_check,
// tests/unit/import_keys_test.cc).
class ForeignKeyChecksOff {
 public:
  explicit ForeignKeyChecksOff(sql::Db& db) : db_(db) { (void)db_.Exec("PRAGMA foreign_keys=OFF"); }
  ~ForeignKeyChecksOff() { (void)db_.Exec("PRAGMA foreign_keys=ON"); }
  ForeignKeyChecksOff(const ForeignKeyChecksOff&) = delete;
  ForeignKeyChecksOff& operator=(const ForeignKeyChecksOff&) = delete;

 private:
  sql::Db& db_;
};

}  // namespace

Result<std::vector<FileOutcome>> ImportFiles(store::Store& store, const std::vector<std::string>& paths,
                                             const ImportOptions& options, const BeforeCommit& before_commit) {
  // One file named twice would count its events twice: refused before anything is read.
  std::set<fs::path> seen;
  for (const auto& p : paths) {
    std::error_code ec;
    fs::path same = fs::weakly_canonical(p, ec);
    if (ec) same = fs::absolute(p, ec);
    if (!seen.insert(same).second)
      return Error{p, "named twice in one import (its events would be counted twice)", "name each file once"};
  }
  // Pick every importer before writing anything: a wrong file fails the whole call early.
  std::vector<std::unique_ptr<Importer>> importers;
  for (const auto& p : paths) {
    auto imp = ImporterFor(p, options.ncu, options.via_ncu);
    if (!imp.ok()) return imp.error();
    importers.push_back(std::move(imp).value());
  }
  // Each file's fingerprint: a pass over the whole file (a sixth of a large ncu report's import),
  // so it runs beside that file's own import (started with it, not one thread per file of a
  // large call at once); the store is asked for them before the commit.
  std::vector<std::future<Result<std::string>>> hashing;
  const ForeignKeyChecksOff bulk_load(store.db());
  auto tx = sql::Transaction::Begin(store.db());
  if (!tx.ok()) return tx.error();
  std::vector<FileOutcome> outcomes;
  std::vector<std::optional<analysis::DerivedLaunchFigures>> derived_figures;  // per outcome
  // What the current run's summaries need, gathered over its files; they are derived once
  // its last file is in, and the facts dropped before the next run starts.
  analysis::NsysFacts facts;
  int64_t run_id = 0;
  bool run_has_nsys = false;  // an nsys export went into the current run in this call
  auto finish_run = [&]() -> Status {
    if (run_has_nsys) {
      KSCOPE_RETURN_IF_ERROR(analysis::MaterializeRanks(store, run_id, facts.launched_rank));
      KSCOPE_RETURN_IF_ERROR(analysis::MaterializeNsysSummaries(store, run_id, facts));
    }
    facts = {};
    run_has_nsys = false;
    return Status::Ok();
  };
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i == 0 && options.into_run != 0) {
      auto run = store.GetRun(options.into_run);
      if (!run.ok()) return run.error();
      run_id = options.into_run;
    } else if (i == 0 || options.run_per_file) {
      KSCOPE_RETURN_IF_ERROR(finish_run());
      auto id = store.CreateRun(options.manifest);
      if (!id.ok()) return id.error();
      run_id = *id;
    }
    int64_t kernels_before = 0;
    if (importers[i]->format() == "nsys-sqlite" && run_has_nsys) {
      auto rows = store.StreamRows(run_id, "kernel");
      if (!rows.ok()) return rows.error();
      kernels_before = *rows;
    }
    if (importers[i]->format() == "nsys-sqlite" && !run_has_nsys) {
      // The files of one call may share a run (their events are summarized together); an
      // earlier call's run already has its summaries.
      auto existing = store.StreamRows(run_id, "kernel");
      if (!existing.ok()) return existing.error();
      if (*existing > 0) {
        return Error{paths[i], "run " + std::to_string(run_id) + " already has an nsys export",
                     "import the nsys exports of one run in one call"};
      }
      run_has_nsys = true;
    }
    std::error_code ec;
    store::SourceFile file;
    auto recorded = options.recorded_paths.find(paths[i]);
    file.path = fs::absolute(recorded == options.recorded_paths.end() ? paths[i] : recorded->second, ec).string();
    file.format = std::string(importers[i]->format());
    file.bytes = static_cast<int64_t>(fs::file_size(paths[i], ec));
    auto source_id = store.AddSourceFile(run_id, file);
    if (!source_id.ok()) return source_id.error();
    hashing.push_back(std::async(std::launch::async, FileContentHash, paths[i]));
    const auto placed = options.placements.find(paths[i]);
    auto result = importers[i]->Import(
        paths[i], ImportTarget{store, run_id, *source_id, facts, options.threads, options.allow_no_kernels,
                               placed == options.placements.end() ? FilePlacement{} : placed->second});
    if (!result.ok()) {
      Error e = result.error();
      if (e.where.empty()) e.where = paths[i];
      return e;
    }
    KSCOPE_RETURN_IF_ERROR(
        store.FinishSourceFile(*source_id, result->format_version, result->rows_read, result->rows_skipped));
    KSCOPE_RETURN_IF_ERROR(store.CompleteManifest(run_id, result->learned));
    outcomes.push_back({paths[i], run_id, *source_id, result->rows_read, result->rows_skipped, kernels_before});
    derived_figures.push_back(std::move(result->launch_figures));
  }
  KSCOPE_RETURN_IF_ERROR(finish_run());
  // A file already in the store would count its events twice: refused when asked, and nothing
  // of this call is kept. Each source row gets its file's fingerprint.
  std::vector<std::string> hashes;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    auto hash = hashing[i].get();
    if (!hash.ok()) return hash.error();
    if (options.refuse_known_content) {
      // Two files of this call with one content: their run is this call's, which is not kept.
      if (auto same = std::find(hashes.begin(), hashes.end(), *hash); same != hashes.end()) {
        const auto& first = paths[static_cast<size_t>(same - hashes.begin())];
        return Error{paths[i], fmt::format("has the same content as {}, named before it in this import", first),
                     "name one of the two, or import both with --force (their events then count twice)"};
      }
      hashes.push_back(*hash);
      auto run = store.RunWithContent(*hash);
      if (!run.ok()) return run.error();
      if (*run) {
        return Error{paths[i], fmt::format("already imported as run {} (a file of the same content)", **run),
                     fmt::format("use run {}, or import it again with --force", **run)};
      }
    }
    KSCOPE_RETURN_IF_ERROR(store.SetSourceContentHash(outcomes[i].source_id, *hash));
  }
  // ncu launches next to nsys kernels in one run: each profiled launch to its kernel.
  std::vector<int64_t> runs;
  for (const auto& o : outcomes) {
    if (std::find(runs.begin(), runs.end(), o.run_id) == runs.end()) runs.push_back(o.run_id);
  }
  for (int64_t r : runs) {
    auto linked = analysis::LinkNcuToTimeline(store, r);
    if (!linked.ok()) return linked.error();
    std::vector<NcuFileOfRun> ncu_files;
    std::vector<size_t> ncu_outcomes;
    for (size_t i = 0; i < outcomes.size(); ++i) {
      if (outcomes[i].run_id == r && importers[i]->format() != "nsys-sqlite") {
        ncu_files.push_back({outcomes[i].path, outcomes[i].source_id});
        ncu_outcomes.push_back(i);
      }
    }
    if (ncu_files.empty()) continue;
    // Each profiled launch's figures, derived once from all of its metrics (a file may have
    // added metrics to launches an earlier file brought): as its importer derived them when
    // one file brought all of the run's launches (it says so by returning them), else from
    // the store.
    const auto& one = derived_figures[ncu_outcomes.front()];
    KSCOPE_RETURN_IF_ERROR(
        analysis::MaterializeLaunchFigures(store, r, ncu_outcomes.size() == 1 && one ? &*one : nullptr));
    if (options.refuse_unrelated_ncu) KSCOPE_RETURN_IF_ERROR(CheckNcuBelongsToRun(store, r, ncu_files));
  }
  if (before_commit) KSCOPE_RETURN_IF_ERROR(before_commit(outcomes));
  {
    const HoldInterrupts hold;  // an interrupt now comes once the note below is set, or with nothing kept
    if (auto st = tx->Commit(); !st.ok()) {
      const Error& e = st.error();
      return Error{store.db().path(), "cannot commit the import: " + e.what,
                   e.fix.empty() ? "check free disk space" : e.fix};
    }
    SetInterruptNote(CommittedNote(outcomes));
    if (options.on_commit) options.on_commit(outcomes);
  }
  return outcomes;
}

std::string CommittedNote(const std::vector<FileOutcome>& outcomes) {
  std::vector<int64_t> runs;
  for (const auto& o : outcomes) {
    if (std::find(runs.begin(), runs.end(), o.run_id) == runs.end()) runs.push_back(o.run_id);
  }
  return fmt::format("kscope: interrupted after the import was committed: run{} {} {} complete\n",
                     runs.size() == 1 ? "" : "s", fmt::join(runs, ", "), runs.size() == 1 ? "is" : "are");
}

}  // namespace kscope::import
