// The one derivation step after an import: what kscope derives from the rows an importer wrote
// (importers only write what their file holds). It runs once per run of an import, inside the
// import's transaction, after the run's last file of the call is written, in this order:
//
//   1. the run's ranks and nsys summaries, from the facts its nsys exports gathered as they
//      streamed (analysis/timeline/nsys_facts.h), when exports came in;
//   2. the links of its profiled launches to kernels: those the run's own timeline matches
//      (kernel name, grid and block, NVTX range: analysis/kernels/ncu_timeline_link.h), then,
//      overriding them, those the plan of a file names (analysis/kernels/planned_links.h);
//   3. whether unplanned ncu results belong to the run at all (import/ncu_run_check.h);
//   4. each profiled launch's figures and shape (analysis/kernels/launch_figures.h), from the
//      links just made.
//
// Steps 2 and 4 read the timelines they need (the run's own, the discovery run of a plan)
// through one RunTimelines: each run's events are decoded once, and only when needed.
// Every importer's caller goes through here (import/import_files.h); an importer of another
// format hands over the facts it gathered the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/kernels/launch_figures.h"
#include "analysis/timeline/nsys_facts.h"
#include "import/ncu_run_check.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::import {

// The plan of one ncu file's launches (kscope profile's selection): ncu's k-th profiled launch
// is kernel row `profiled_rows[k]` of the discovery run.
struct PlannedLaunches {
  std::string path;           // the file as the import names it: a pass's report, or its raw page
  int64_t discovery_run = 0;  // the run holding the kernels; 0: the run the file goes into
  std::vector<int64_t> profiled_rows;
  // ncu's filter was wider than the plan (function names, for a discovery run without mangled
  // names: a PyTorch profiler trace): its launches are linked by matching to the discovery
  // run's kernels (name, grid, block), not by their place in the plan.
  bool by_matching = false;
  // A node of a job imported as one run: the nsys export whose kernel rows profiled_rows count
  // from (its rows follow those of the nodes before it); "": the run's first kernel.
  std::string rows_of{};
};

// How the launches of one ncu file were linked.
struct LaunchLinks {
  int64_t planned = 0;     // to the kernel their plan named
  int64_t mismatched = 0;  // of the planned file's launches, not the kernel the plan named
  int64_t matched = 0;     // of those, linked by kernel name, grid, block and NVTX range instead
};

// What one import call wrote into a run.
struct ImportedRun {
  int64_t run_id = 0;
  analysis::NsysFacts* nsys = nullptr;  // what its nsys exports gathered; null when none came in
  struct NcuFile {
    NcuFileOfRun file;
    const PlannedLaunches* plan = nullptr;  // null: linked by matching alone
  };
  std::vector<NcuFile> ncu;  // the ncu files it brought, in import order
  // The figures of every launch of the run, when its one ncu file derived them as it wrote
  // them (import/importer.h); else they are derived from the stored metrics.
  const analysis::DerivedLaunchFigures* figures = nullptr;
  bool refuse_unrelated_ncu = false;  // refuse unplanned ncu files that match none of its kernels
};

// Derives everything of `run` (above); per ncu file of `run.ncu`, how its launches were linked.
// The facts in `run.nsys` are consumed.
Result<std::vector<LaunchLinks>> DeriveImportedRun(store::Store& store, ImportedRun& run);

}  // namespace kscope::import
