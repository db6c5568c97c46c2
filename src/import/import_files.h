// Imports files into a store as one transaction: every file is read, its rows written by its
// importer, and what is derived from them (summaries, launch links, figures) derived once per
// run by import/derive_run.h; or nothing at all is kept.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "import/derive_run.h"
#include "import/importer.h"
#include "store/store.h"
#include "tools/ncu_tool.h"
#include "util/status.h"

namespace kscope::import {

struct FileOutcome {
  std::string path;
  int64_t run_id = 0;
  int64_t source_id = 0;  // its row in source_file
  int64_t rows_read = 0;
  int64_t rows_skipped = 0;
  int64_t shared_correlations = 0;  // CUDA calls repeating an earlier call's correlation id
  LaunchLinks links;                // an ncu file's: how its launches were linked to kernels
  int64_t kernels_before = 0;       // an nsys export: the run's kernel rows before its own (its first row's index)
};

struct ImportOptions {
  store::Manifest manifest;               // what the user says about the run
  bool run_per_file = false;              // one run per file instead of one run for all
  size_t threads = 0;                     // reader threads per file; 0: one per core
  bool allow_no_kernels = false;          // import an nsys export without kernels (kscope stats FILE:
                                          // its NVTX and API summaries need none); refused otherwise
  int64_t into_run = 0;                   // add the files to this existing run (e.g. ncu results to an nsys run)
  bool refuse_known_content = false;      // refuse a file whose content the store holds (kscope import
                                          // without --force)
  bool refuse_unrelated_ncu = false;      // refuse ncu results that match none of their run's nsys kernels
                                          // (kscope import without --force; import/ncu_run_check.h)
  bool via_ncu = false;                   // read .ncu-rep files through ncu's page exports (the fallback)
  bool partial = false;                   // kscope import DIR --partial: a run directory missing a report its
                                          // manifest names is imported, marked incomplete, instead of refused
  std::shared_ptr<capture::NcuTool> ncu;  // that ncu; null: the installed ncu
  // The plans of ncu files kscope profile made (by path as given here): their launches are
  // linked to the kernels planned, before anything is derived from the links.
  std::vector<PlannedLaunches> planned;
  // Called right after the commit, before interrupts held during it come (util/interrupt_note.h).
  std::function<void(const std::vector<FileOutcome>&)> on_commit;
  // The nsys exports of one job's nodes in one run: each file's place on the run's timeline.
  std::map<std::string, FilePlacement> placements;
  // The path to record for a file read from a copy (e.g. a .zst file decompressed): copy -> original.
  std::map<std::string, std::string> recorded_paths;
};

// Runs inside the import's transaction after the files are in and derived, before the commit:
// what the caller adds to the same runs (e.g. a run directory's plan and manifest) is kept
// with them or not at all.
using BeforeCommit = std::function<Status(const std::vector<FileOutcome>&)>;

// The line an interrupt just after the commit prints: which runs are complete.
std::string CommittedNote(const std::vector<FileOutcome>& outcomes);

// An interrupt (SIGINT, SIGTERM, SIGHUP) during the commit is held until the commit is
// done and CommittedNote is set (util/interrupt_note.h): it then says which runs were kept.
Result<std::vector<FileOutcome>> ImportFiles(store::Store& store, const std::vector<std::string>& paths,
                                             const ImportOptions& options, const BeforeCommit& before_commit = {});

}  // namespace kscope::import
