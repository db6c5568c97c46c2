#include "import/import_files.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "import/derive_run.h"
#include "import/importer.h"
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

// Refused before anything is read: one file named twice would count its events twice.
Status CheckNamedOnce(const std::vector<std::string>& paths) {
  std::set<fs::path> seen;
  for (const auto& p : paths) {
    std::error_code ec;
    fs::path same = fs::weakly_canonical(p, ec);
    if (ec) same = fs::absolute(p, ec);
    if (!seen.insert(same).second)
      return Error{p, "named twice in one import (its events would be counted twice)", "name each file once"};
  }
  return Status::Ok();
}

// One call of ImportFiles inside its transaction: each file written into its run by its
// importer, each run derived once its last file is in (DeriveImportedRun).
class ImportCall {
 public:
  ImportCall(store::Store& store, const std::vector<std::string>& paths, const ImportOptions& options,
             std::vector<std::unique_ptr<Importer>> importers)
      : store_(store), paths_(paths), options_(options), importers_(std::move(importers)) {}

  Result<std::vector<FileOutcome>> WriteAndDerive() {
    for (size_t i = 0; i < paths_.size(); ++i) {
      KSCOPE_RETURN_IF_ERROR(EnterRun(i));
      KSCOPE_RETURN_IF_ERROR(WriteFile(i));
    }
    KSCOPE_RETURN_IF_ERROR(FinishRun());
    return std::move(outcomes_);
  }

 private:
  // Whether file i's importer writes a run's timeline (Importer::writes_timeline).
  [[nodiscard]] bool WritesTimeline(size_t i) const { return importers_[i]->writes_timeline(); }
  [[nodiscard]] size_t TimelineFiles() const {
    size_t n = 0;
    for (size_t i = 0; i < paths_.size(); ++i) n += WritesTimeline(i) ? 1 : 0;
    return n;
  }

  // The run file `i` goes into: the one asked for, the call's one run, or a new one per file.
  Status EnterRun(size_t i) {
    if (i == 0 && options_.into_run != 0) {
      auto run = store_.GetRun(options_.into_run);
      if (!run.ok()) return run.error();
      run_id_ = options_.into_run;
    } else if (i == 0 || options_.run_per_file) {
      KSCOPE_RETURN_IF_ERROR(FinishRun());
      auto id = store_.CreateRun(options_.manifest);
      if (!id.ok()) return id.error();
      run_id_ = *id;
    }
    if (WritesTimeline(i) && !run_has_nsys_) {
      // The files of one call may share a run (their events are summarized together); an
      // earlier call's run already has its summaries.
      auto existing = store_.StreamRows(run_id_, "kernel");
      if (!existing.ok()) return existing.error();
      if (*existing > 0) {
        return Error{paths_[i],
                     "run " + std::to_string(run_id_) + " already has a timeline (an nsys export or a trace)",
                     "import the nsys exports or traces of one run in one call"};
      }
      run_has_nsys_ = true;
    }
    return Status::Ok();
  }

  // The file's source row and its rows, through its importer; its fingerprint computed beside.
  Status WriteFile(size_t i) {
    std::error_code ec;
    store::SourceFile file;
    auto recorded = options_.recorded_paths.find(paths_[i]);
    file.path = fs::absolute(recorded == options_.recorded_paths.end() ? paths_[i] : recorded->second, ec).string();
    file.format = std::string(importers_[i]->format());
    file.bytes = static_cast<int64_t>(fs::file_size(paths_[i], ec));
    auto source_id = store_.AddSourceFile(run_id_, file);
    if (!source_id.ok()) return source_id.error();
    hashing_.push_back(std::async(std::launch::async, FileContentHash, paths_[i]));
    int64_t kernels_before = 0;  // a timeline's file: the run's kernel rows before its own
    if (WritesTimeline(i)) {
      auto rows = store_.StreamRows(run_id_, "kernel");
      if (!rows.ok()) return rows.error();
      kernels_before = *rows;
    }
    const auto placed = options_.placements.find(paths_[i]);
    auto result = importers_[i]->Import(
        paths_[i], ImportTarget{store_, run_id_, *source_id, facts_, options_.threads, options_.allow_no_kernels,
                                placed == options_.placements.end() ? FilePlacement{} : placed->second,
                                WritesTimeline(i) && !options_.run_per_file && TimelineFiles() > 1});
    if (!result.ok()) {
      Error e = result.error();
      if (e.where.empty()) e.where = paths_[i];
      return e;
    }
    KSCOPE_RETURN_IF_ERROR(
        store_.FinishSourceFile(*source_id, result->format_version, result->rows_read, result->rows_skipped));
    KSCOPE_RETURN_IF_ERROR(store_.CompleteManifest(run_id_, result->learned));
    outcomes_.push_back({paths_[i],
                         run_id_,
                         *source_id,
                         result->rows_read,
                         result->rows_skipped,
                         result->shared_correlations,
                         {},
                         kernels_before});
    figures_.push_back(std::move(result->launch_figures));
    return Status::Ok();
  }

  // The current run's derivation, then its files' fingerprints (checked against the store when
  // asked); its facts are dropped before the next run starts.
  Status FinishRun() {
    const size_t first = run_first_;
    run_first_ = outcomes_.size();
    if (first == outcomes_.size()) return Status::Ok();
    ImportedRun run;
    run.run_id = run_id_;
    run.nsys = run_has_nsys_ ? &facts_ : nullptr;
    run.refuse_unrelated_ncu = options_.refuse_unrelated_ncu;
    std::vector<size_t> ncu;             // the run's ncu files, by outcome
    std::deque<PlannedLaunches> placed;  // plans whose rows count from a node's export, moved to the run's rows
    for (size_t i = first; i < outcomes_.size(); ++i) {
      if (WritesTimeline(i)) continue;
      const PlannedLaunches* plan = PlanOf(outcomes_[i].path);
      if (plan != nullptr && !plan->rows_of.empty()) plan = &placed.emplace_back(OnRunRows(*plan, first));
      run.ncu.push_back({{outcomes_[i].path, outcomes_[i].source_id}, plan});
      ncu.push_back(i);
    }
    // Each profiled launch's figures, derived once from all of its metrics (a file may have
    // added metrics to launches an earlier file brought): as its importer derived them when
    // one file brought all of the run's launches (it says so by returning them).
    if (ncu.size() == 1 && figures_[ncu.front()]) run.figures = &*figures_[ncu.front()];
    auto links = DeriveImportedRun(store_, run);
    if (!links.ok()) return links.error();
    for (size_t k = 0; k < ncu.size(); ++k) outcomes_[ncu[k]].links = (*links)[k];
    facts_ = {};
    run_has_nsys_ = false;
    for (size_t i = first; i < outcomes_.size(); ++i) KSCOPE_RETURN_IF_ERROR(CheckContent(i));
    return Status::Ok();
  }

  // `plan` with its rows counted from the run's first kernel: offset by the kernel rows that
  // came before its node's export (a job's nodes in one run).
  [[nodiscard]] PlannedLaunches OnRunRows(const PlannedLaunches& plan, size_t first) const {
    PlannedLaunches moved = plan;
    for (size_t i = first; i < outcomes_.size(); ++i) {
      if (outcomes_[i].path != plan.rows_of) continue;
      for (int64_t& row : moved.profiled_rows) row += outcomes_[i].kernels_before;
    }
    return moved;
  }

  [[nodiscard]] const PlannedLaunches* PlanOf(const std::string& path) const {
    for (const auto& plan : options_.planned) {
      if (plan.path == path) return &plan;
    }
    return nullptr;
  }

  // A file already in the store would count its events twice: refused when asked, and nothing
  // of this call is kept. Its source row gets its fingerprint.
  Status CheckContent(size_t i) {
    auto hash = hashing_[i].get();
    if (!hash.ok()) return hash.error();
    if (options_.refuse_known_content) {
      // Two files of this call with one content: their run is this call's, which is not kept.
      if (auto same = std::find(hashes_.begin(), hashes_.end(), *hash); same != hashes_.end()) {
        const auto& earlier = paths_[static_cast<size_t>(same - hashes_.begin())];
        return Error{paths_[i], fmt::format("has the same content as {}, named before it in this import", earlier),
                     "name one of the two, or import both with --force (their events then count twice)"};
      }
      hashes_.push_back(*hash);
      auto run = store_.RunWithContent(*hash);
      if (!run.ok()) return run.error();
      if (*run) {
        return Error{paths_[i], fmt::format("already imported as run {} (a file of the same content)", **run),
                     fmt::format("use run {}, or import it again with --force", **run)};
      }
    }
    return store_.SetSourceContentHash(outcomes_[i].source_id, *hash);
  }

  store::Store& store_;
  const std::vector<std::string>& paths_;
  const ImportOptions& options_;
  std::vector<std::unique_ptr<Importer>> importers_;
  // Each file's fingerprint: a pass over the whole file (a sixth of a large ncu report's
  // import), so it runs beside that file's own import (started with it, not one thread per
  // file of a large call at once); the store is asked for them when the file's run is derived.
  std::vector<std::future<Result<std::string>>> hashing_;
  std::vector<std::string> hashes_;  // those checked, in file order
  std::vector<FileOutcome> outcomes_;
  std::vector<std::optional<analysis::DerivedLaunchFigures>> figures_;  // per outcome
  // What the current run's summaries need, gathered over its files of this call.
  analysis::NsysFacts facts_;
  int64_t run_id_ = 0;
  size_t run_first_ = 0;       // the current run's first outcome
  bool run_has_nsys_ = false;  // an nsys export went into the current run in this call
};

Status Commit(sql::Transaction& tx, store::Store& store, const ImportOptions& options,
              const std::vector<FileOutcome>& outcomes) {
  const HoldInterrupts hold;  // an interrupt now comes once the note below is set, or with nothing kept
  if (auto st = tx.Commit(); !st.ok()) {
    const Error& e = st.error();
    return Error{store.db().path(), "cannot commit the import: " + e.what,
                 e.fix.empty() ? "check free disk space" : e.fix};
  }
  SetInterruptNote(CommittedNote(outcomes));
  if (options.on_commit) options.on_commit(outcomes);
  return Status::Ok();
}

}  // namespace

Result<std::vector<FileOutcome>> ImportFiles(store::Store& store, const std::vector<std::string>& paths,
                                             const ImportOptions& options, const BeforeCommit& before_commit) {
  KSCOPE_RETURN_IF_ERROR(CheckNamedOnce(paths));
  // Pick every importer before writing anything: a wrong file fails the whole call early.
  std::vector<std::unique_ptr<Importer>> importers;
  for (const auto& p : paths) {
    auto imp = ImporterFor(p, options.ncu, options.via_ncu);
    if (!imp.ok()) return imp.error();
    importers.push_back(std::move(imp).value());
  }
  const ForeignKeyChecksOff bulk_load(store.db());
  auto tx = sql::Transaction::Begin(store.db());
  if (!tx.ok()) return tx.error();
  ImportCall call(store, paths, options, std::move(importers));
  auto outcomes = call.WriteAndDerive();
  if (!outcomes.ok()) return outcomes.error();
  if (before_commit) KSCOPE_RETURN_IF_ERROR(before_commit(*outcomes));
  KSCOPE_RETURN_IF_ERROR(Commit(*tx, store, options, *outcomes));
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
