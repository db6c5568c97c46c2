// The one contract every input format implements, and the registry that picks an importer
// by sniffing a file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/kernels/launch_figures.h"
#include "analysis/timeline/nsys_facts.h"
#include "store/store.h"
#include "tools/ncu_tool.h"
#include "util/status.h"

namespace kscope::import {

// Where one nsys export's events go on its run's timeline, when the run holds the exports of
// several nodes of one job, each on its own session clock (capture/job_import.h).
struct FilePlacement {
  int64_t offset_ns = 0;  // added to every time: the file's session start after the job's first
  int64_t host = 0;       // when not 0, the host bits (48 and up) of its process and thread ids
};

// Where an importer writes: one run of an open store, inside the caller's transaction.
struct ImportTarget {
  store::Store& store;
  int64_t run_id;
  int64_t source_id;                 // this file's row in source_file
  analysis::NsysFacts& facts;        // what the run's summaries need; importers append
  size_t threads = 0;                // reader threads; 0: one per core
  bool allow_no_kernels = false;     // take an nsys export without kernels (kscope stats FILE's
                                     // in-memory import, for the reports that need none)
  FilePlacement placement = {};      // the file's place in a job's run; none by default
  bool timeline_of_several = false;  // one of several files that make the run's timeline (the
                                     // traces of a job's ranks, one per rank)
};

struct ImportResult {
  std::string format_version;       // the file's own schema version
  int64_t rows_read = 0;            // rows kept
  int64_t rows_skipped = 0;         // bad rows, each recorded in import_problem
  int64_t shared_correlations = 0;  // CUDA calls repeating an earlier call's correlation id (import_problem)
  store::Manifest learned;          // what the file says about the run (GPU, versions, command)
  // The figures of every profiled launch the file brought (launch id, figures), when the
  // importer derived them as it wrote the metrics and no earlier file's metrics are merged
  // into those launches; otherwise they are derived from the store after the import.
  std::optional<analysis::DerivedLaunchFigures> launch_figures;
};

class Importer {
 public:
  virtual ~Importer() = default;
  [[nodiscard]] virtual std::string_view format() const = 0;
  // Whether the format holds a run's timeline (kernels, CUDA calls, NVTX ranges), from which
  // the derivation step makes the run's ranks and summaries: an nsys export, a PyTorch profiler
  // trace. ncu's formats add profiled launches to a run instead.
  [[nodiscard]] virtual bool writes_timeline() const = 0;
  // Reads `path` and writes its events through `target`. A fatal error leaves the
  // transaction to be rolled back by the caller; bad rows are counted, not fatal.
  virtual Result<ImportResult> Import(const std::string& path, const ImportTarget& target) = 0;
};

// Picks the importer for `path` from its first bytes, or explains why none fits. Reports
// (.ncu-rep) are read natively; with `via_ncu` through `ncu` instead (when null, the
// installed ncu is looked for).
Result<std::unique_ptr<Importer>> ImporterFor(const std::string& path, std::shared_ptr<capture::NcuTool> ncu = nullptr,
                                              bool via_ncu = false);

}  // namespace kscope::import
