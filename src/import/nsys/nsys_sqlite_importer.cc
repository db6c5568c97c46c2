#include "import/nsys/nsys_sqlite_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <thread>

#include "import/nsys/export_manifest.h"
#include "import/nsys/export_schema.h"
#include "import/nsys/gpu_metrics_reader.h"
#include "import/nsys/read_context.h"
#include "import/nsys/table_readers.h"
#include "import/shared_correlations.h"
#include "util/guarded.h"
#include "util/release_memory.h"
#include "util/sqlite_file.h"

namespace kscope::import::nsys {

namespace {

// How many reader threads for a table: `threads` (0: as many as the machine has cores), at
// least two, none for an empty table.
size_t ReaderThreads(size_t threads_wanted, int64_t rows) {
  if (rows <= 0) return 0;
  return std::clamp<size_t>(threads_wanted == 0 ? std::thread::hardware_concurrency() : threads_wanted, 2, 64);
}

// Slice i of n over rowids 1..rows; the last slice is open-ended.
Slice SliceOf(int64_t rows, size_t n, size_t i) {
  const int64_t per = rows / static_cast<int64_t>(n) + 1;
  const int64_t first = static_cast<int64_t>(i) * per;
  return {first, i + 1 == n ? INT64_MAX : first + per - 1, static_cast<size_t>(per), static_cast<int64_t>(i)};
}

// Regions of `slices` slices of `per` rows each, after the `columns`' current rows.
std::vector<FactRegion> Regions(const std::array<std::vector<int64_t>*, 4>& columns, std::vector<int32_t>* names,
                                size_t slices, size_t per) {
  const size_t base = columns[0]->size();
  for (auto* c : columns) c->resize(base + slices * per);
  names->resize(base + slices * per);
  std::vector<FactRegion> regions;
  for (size_t i = 0; i < slices; ++i) regions.push_back({columns, names, base + i * per, per, 0});
  return regions;
}

// Moves the first `count` values from `at` to `to`, within one column.
template <typename T>
void MoveWithin(std::vector<T>& c, size_t at, size_t count, size_t to) {
  std::copy(c.begin() + static_cast<std::ptrdiff_t>(at), c.begin() + static_cast<std::ptrdiff_t>(at + count),
            c.begin() + static_cast<std::ptrdiff_t>(to));
}

// Closes the gaps the regions left, in place.
void Compact(std::vector<FactRegion>& regions) {
  if (regions.empty()) return;
  size_t to = regions.front().base;
  for (const FactRegion& r : regions) {
    for (auto* c : r.columns) MoveWithin(*c, r.base, r.count, to);
    MoveWithin(*r.names, r.base, r.count, to);
    to += r.count;
  }
  for (auto* c : regions.front().columns) c->resize(to);
  regions.front().names->resize(to);
}

// The first failure of `results`, placed in `path` when it names no place.
Status FirstError(const std::vector<Status>& results, const std::string& path) {
  for (const Status& st : results) {
    if (!st.ok()) {
      Error e = st.error();
      if (e.where.empty()) e.where = path;
      return e;
    }
  }
  return Status::Ok();
}

// Moves `from`'s elements to the end of `to`; `from`'s blocks are freed as it empties, so
// the move holds one copy.
template <typename T>
void MoveAppend(std::deque<T>& from, std::deque<T>& to) {
  if (to.empty()) {
    to.swap(from);
    return;
  }
  while (!from.empty()) {
    to.push_back(from.front());
    from.pop_front();
  }
}

// Appends the slices' API facts to the run's, in slice order, freeing each as it goes. A
// slice's links of operations an earlier slice's call already launched are dropped; returns
// the calls that repeated an earlier call's correlation id.
int64_t MergeApiFacts(std::vector<ApiFacts>& parts, const analysis::OpIndex& ops, analysis::NsysFacts& f) {
  analysis::ClaimsJoin join(ops);
  std::vector<std::pair<uint64_t, bool>> runs;  // a slice's links: (count, kept)
  for (ApiFacts& p : parts) {
    for (auto& [name, durations] : p.durations) {
      analysis::Durations& to = f.api_durations[name];
      MoveAppend(durations.narrow, to.narrow);
      MoveAppend(durations.wide, to.wide);
    }
    for (auto& l : p.launches) l.thread = analysis::ThreadIndex(f.threads, p.threads[l.thread]);
    runs.clear();
    bool all_kept = true;
    if (p.claims) {
      join.Part(*p.claims, [&](uint64_t n, bool keep) {
        runs.emplace_back(n, keep);
        all_kept = all_kept && keep;
      });
    }
    if (all_kept) {
      MoveAppend(p.launches, f.launches);
    } else {
      for (const auto& [n, keep] : runs) {
        for (uint64_t i = 0; i < n; ++i) {
          if (keep) f.launches.push_back(p.launches.front());
          p.launches.pop_front();
        }
      }
    }
    p = ApiFacts();
  }
  return join.duplicates();
}

}  // namespace

Result<ImportResult> NsysSqliteImporter::Import(const std::string& path, const ImportTarget& target) {
  KSCOPE_RETURN_IF_ERROR(CheckSqliteFile(path));
  auto db = sql::Db::Open(path, sql::OpenMode::kReadOnly);
  if (!db.ok()) return Error{path, "cannot open as an SQLite database", "check that it is an nsys SQLite export"};
  auto schema = DetectExportSchema(*db, path);
  if (!schema.ok()) return schema.error();
  if (!schema->HasTable("StringIds")) {
    return Error{path, "nsys export without a StringIds table", "export the report again"};
  }
  // Without its kernel table an export would import as a run with no GPU time at all.
  if (!schema->HasTable("CUPTI_ACTIVITY_KIND_KERNEL") && !target.allow_no_kernels) {
    return Error{path, "nsys export without a CUPTI_ACTIVITY_KIND_KERNEL table (no GPU kernel was recorded)",
                 "profile with CUDA tracing (nsys profile --trace=cuda ...) and export the report again"};
  }
  ExportStrings strings;
  KSCOPE_RETURN_IF_ERROR(strings.Load(*db, path));

  // Kernels and API calls are most of an export: both tables are read in rowid slices, each
  // on its own thread and connection. Kernels come first, while this thread reads the memory
  // operations and NVTX ranges; then the API calls, each linked at once to the operations it
  // launched and the ranges around it, so that only its duration needs keeping. Slices are
  // appended to the run's facts in order, whatever the timing.
  FileContext ctx(path, target, *schema, strings);
  ctx.span_end = ExportSpanEnd(*db, *schema);
  const std::string kernel_table = "CUPTI_ACTIVITY_KIND_KERNEL";
  const std::string api_table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  auto kernel_rows = ctx.RowEstimate(*db, kernel_table);
  if (!kernel_rows.ok()) return kernel_rows.error();
  auto api_rows = ctx.RowEstimate(*db, api_table);
  if (!api_rows.ok()) return api_rows.error();
  for (const auto* spec : {&store::kKernelStream, &store::kApiStream}) {
    auto next = store::NextChunk(target.store.db(), target.run_id, spec->name);
    if (!next.ok()) return next.error();
    ctx.chunk_base[std::string(spec->name)] = *next;
  }
  auto& f = target.facts;
  const size_t kernel_base = f.kernels.start.size();
  const size_t memop_base = f.memops.start.size();
  // Processes of this file's operations only (an earlier file's stay unlinked, kNull):
  // needed to index them, not by the summaries.
  std::vector<int64_t> kernel_pid(kernel_base, store::kNull);
  const size_t kernel_slices = ReaderThreads(target.threads, *kernel_rows);
  std::vector<FactRegion> kernel_parts =
      Regions({&f.kernels.start, &f.kernels.end, &f.kernels.correlation, &kernel_pid}, &f.kernels.name, kernel_slices,
              kernel_slices == 0 ? 0 : SliceOf(*kernel_rows, kernel_slices, 0).max_rows);
  std::vector<Status> results(kernel_slices + 2);
  {
    std::vector<std::thread> readers;
    for (size_t i = 0; i < kernel_slices; ++i) {
      readers.emplace_back([&, i] {
        results[i] =
            Guarded([&] { return ReadKernels(ctx, SliceOf(*kernel_rows, kernel_slices, i), kernel_parts[i]); });
      });
    }
    Status& memops = results[kernel_slices];
    memops = Guarded([&] { return ReadMemops(ctx, *db, f.memops); });
    if (memops.ok()) results.back() = Guarded([&] { return ReadNvtx(ctx, *db, f.nvtx); });
    if (results.back().ok()) results.back() = Guarded([&] { return ReadThreadNames(ctx, *db); });
    if (results.back().ok()) results.back() = Guarded([&] { return ReadGpuMetrics(ctx, *db); });
    for (auto& t : readers) t.join();
  }
  KSCOPE_RETURN_IF_ERROR(FirstError(results, path));
  Compact(kernel_parts);
  if (f.kernels.start.size() == kernel_base && !target.allow_no_kernels) {  // nothing sensible is left
    return Error{path,
                 *kernel_rows == 0
                     ? "nsys export without any GPU kernel (its CUPTI_ACTIVITY_KIND_KERNEL table is empty)"
                     : "none of the kernels of CUPTI_ACTIVITY_KIND_KERNEL has usable times and a name",
                 "profile with CUDA tracing (nsys profile --trace=cuda ...) and export the report again"};
  }
  if (f.kernels.start.size() + f.memops.start.size() >= analysis::NsysFacts::kMemop) {
    return Error{path, "more than 2^31 GPU operations in one run", "import the run's exports into separate runs"};
  }

  std::vector<int64_t> memop_pid(f.memops.global_pid);
  std::fill_n(memop_pid.begin(), memop_base, store::kNull);
  const analysis::OpIndex ops(kernel_pid, f.kernels.correlation, memop_pid, f.memops.correlation);
  kernel_pid = std::vector<int64_t>();
  memop_pid = std::vector<int64_t>();
  // Ranges never closed end at the run's last range timestamp so far: the summaries' own
  // end for a run of one export.
  const analysis::CallRanges ranges(f.nvtx, analysis::OpenRangeEnd(f.nvtx));
  const size_t api_slices = ReaderThreads(target.threads, *api_rows);
  std::vector<ApiFacts> api_parts(api_slices);
  results.assign(api_slices, Status::Ok());
  {
    std::vector<std::thread> readers;
    for (size_t i = 1; i < api_slices; ++i) {
      readers.emplace_back([&, i] {
        results[i] =
            Guarded([&] { return ReadApiCalls(ctx, SliceOf(*api_rows, api_slices, i), ops, ranges, api_parts[i]); });
      });
    }
    // Slice 0 on this thread: the run's facts take its results over without a copy, and
    // what this thread allocates, the summaries' allocations reuse once it is freed.
    if (api_slices > 0) {
      results[0] =
          Guarded([&] { return ReadApiCalls(ctx, SliceOf(*api_rows, api_slices, 0), ops, ranges, api_parts[0]); });
    }
    for (auto& t : readers) t.join();
  }
  KSCOPE_RETURN_IF_ERROR(FirstError(results, path));
  const int64_t repeats = MergeApiFacts(api_parts, ops, f);
  KSCOPE_RETURN_IF_ERROR(CheckSharedCorrelations(
      path, target, repeats, "export the report again from one nsys capture: nsys export --type sqlite ..."));
  ReleaseFreedMemory();
  ImportResult result;
  result.format_version = schema->version;
  result.rows_read = ctx.rows_read;
  result.rows_skipped = ctx.rows_skipped;
  result.shared_correlations = repeats;
  LearnManifest(*db, *schema, result.learned);
  if (!f.launched_rank) f.launched_rank = LaunchedRank(*db, *schema);
  return result;
}

}  // namespace kscope::import::nsys
