// Copying runs from one kscope store into another, the ground of `kscope merge` and of `kscope
// export` / `kscope import` of exported runs: every row of each run (the run and its manifest,
// source files, event streams, summaries, ranks, gaps, ncu launches, metrics, rules and figures)
// with the run, source-file, chunk and problem ids given anew in the target and string ids mapped
// to the target's own (inside the event streams too, whose string columns are decoded, mapped and
// encoded again), all in one transaction: on any failure the target is left as it was.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::import {

struct RunCopyOptions {
  std::vector<int64_t> runs;  // the source's runs to copy (each once); empty: every run, by id
  bool keep_ids = false;      // each run keeps its id (the target must lack it): kscope export
  // Where the source's runs that are not copied now went earlier (source id -> target id): a
  // copied launch profiled against another run's kernels (ncu_launch.kernel_run, a targeted run's
  // discovery run) follows it there; a link to a run in neither is removed, with a note.
  std::map<int64_t, int64_t> earlier_runs;
  // Refuse the whole copy when a copied run holds a source file whose content the target holds
  // already (by content hash; by format, size and rows where either side lacks the hash).
  bool refuse_duplicates = true;
};

struct RunCopyOutcome {
  std::map<int64_t, int64_t> runs;  // source run id -> target run id
  std::vector<std::string> notes;
};

// Copies runs of the store at `source_path` (of today's schema: import::OpenSourceStore makes a
// private upgraded copy of an older one) into `target`, in one transaction that `before_commit`
// may add to; `source_name` is how errors name the source.
Result<RunCopyOutcome> CopyRuns(store::Store& target, const std::string& source_path, const std::string& source_name,
                                const RunCopyOptions& options,
                                const std::function<Status(const RunCopyOutcome&)>& before_commit = {});

// The columns of the event streams that hold string ids ("kernel.name", ...): their values are
// mapped when a run is copied to another store.
bool IsStringColumn(std::string_view stream, std::string_view column);

}  // namespace kscope::import
