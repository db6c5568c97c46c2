#include "import/nsys/nsys_sqlite_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <thread>

#include "import/nsys/export_manifest.h"
#include "import/nsys/export_schema.h"
#include "import/nsys/read_context.h"
#include "import/nsys/table_readers.h"
#include "util/guarded.h"
#include "util/sqlite_file.h"

namespace kscope::import::nsys {

namespace {

// How many reader threads for the kernel and the API call tables: `threads` (0: as many as
// the machine has cores; at least one each), shared in proportion to their rows.
std::pair<size_t, size_t> SplitThreads(size_t threads_wanted, int64_t kernel_rows, int64_t api_rows) {
  const size_t threads =
      std::clamp<size_t>(threads_wanted == 0 ? std::thread::hardware_concurrency() : threads_wanted, 2, 64);
  if (kernel_rows <= 0 || api_rows <= 0) return {kernel_rows > 0 ? threads : 0, api_rows > 0 ? threads : 0};
  const double share = static_cast<double>(kernel_rows) / static_cast<double>(kernel_rows + api_rows);
  const auto kernels =
      std::clamp<size_t>(static_cast<size_t>(std::lround(share * static_cast<double>(threads))), 1, threads - 1);
  return {kernels, threads - kernels};
}

// Slice i of n over rowids 1..rows; the last slice is open-ended.
Slice SliceOf(int64_t rows, size_t n, size_t i) {
  const int64_t per = rows / static_cast<int64_t>(n) + 1;
  const int64_t first = static_cast<int64_t>(i) * per;
  return {first, i + 1 == n ? INT64_MAX : first + per - 1, static_cast<size_t>(per), static_cast<int64_t>(i)};
}

// Regions of `slices` slices of `per` rows each, after the `columns`' current rows.
std::vector<FactRegion> Regions(const std::array<std::vector<int64_t>*, 5>& columns, size_t slices, size_t per) {
  const size_t base = columns[0]->size();
  for (auto* c : columns) c->resize(base + slices * per);
  std::vector<FactRegion> regions;
  for (size_t i = 0; i < slices; ++i) regions.push_back({columns, base + i * per, per, 0});
  return regions;
}

// Closes the gaps the regions left, in place.
void Compact(std::vector<FactRegion>& regions) {
  if (regions.empty()) return;
  size_t to = regions.front().base;
  for (const FactRegion& r : regions) {
    for (auto* c : r.columns) {
      std::copy(c->begin() + static_cast<std::ptrdiff_t>(r.base),
                c->begin() + static_cast<std::ptrdiff_t>(r.base + r.count),
                c->begin() + static_cast<std::ptrdiff_t>(to));
    }
    to += r.count;
  }
  for (auto* c : regions.front().columns) c->resize(to);
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
  ExportStrings strings;
  if (!strings.Load(*db).ok()) {
    return Error{path, fmt::format("corrupt SQLite file while reading StringIds ({})", db->ErrorMessage()),
                 "copy or export it again"};
  }

  // Kernels and API calls are most of an export: both tables are read in rowid slices, each
  // on its own thread and connection, while this thread reads the memory operations and
  // NVTX ranges. Slices are appended to the run's events in order, whatever the timing.
  FileContext ctx(path, target, *schema, strings);
  const std::string kernel_table = "CUPTI_ACTIVITY_KIND_KERNEL";
  const std::string api_table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  auto kernel_rows = ctx.RowEstimate(*db, kernel_table);
  if (!kernel_rows.ok()) return kernel_rows.error();
  auto api_rows = ctx.RowEstimate(*db, api_table);
  if (!api_rows.ok()) return api_rows.error();
  for (const auto* spec : {&store::kKernelStream, &store::kApiStream}) {
    auto q = target.store.db().Prepare(
        "SELECT coalesce(max(chunk) + 1, 0) FROM event_chunk WHERE run_id = ?1 AND stream = ?2");
    if (!q.ok()) return q.error();
    q->Bind(1, target.run_id).Bind(2, spec->name);
    ctx.chunk_base[std::string(spec->name)] = q->Step() ? q->Int(0) : 0;
  }
  const auto split = SplitThreads(target.threads, *kernel_rows, *api_rows);
  const size_t kernel_slices = split.first;
  const size_t api_slices = split.second;
  auto& ev = target.events;
  std::vector<FactRegion> kernel_parts =
      Regions({&ev.kernels.start, &ev.kernels.end, &ev.kernels.correlation, &ev.kernels.global_pid, &ev.kernels.name},
              kernel_slices, kernel_slices == 0 ? 0 : SliceOf(*kernel_rows, kernel_slices, 0).max_rows);
  std::vector<FactRegion> api_parts =
      Regions({&ev.api.start, &ev.api.end, &ev.api.global_tid, &ev.api.correlation, &ev.api.name}, api_slices,
              api_slices == 0 ? 0 : SliceOf(*api_rows, api_slices, 0).max_rows);
  // One result per reader thread, then this thread's two; sized once, since the threads
  // write into it while this thread works.
  std::vector<Status> results(kernel_slices + api_slices + 2);
  std::vector<std::thread> readers;
  for (size_t i = 0; i < kernel_slices; ++i) {
    readers.emplace_back([&, i] {
      results[i] = Guarded([&] { return ReadKernels(ctx, SliceOf(*kernel_rows, kernel_slices, i), kernel_parts[i]); });
    });
  }
  for (size_t i = 0; i < api_slices; ++i) {
    readers.emplace_back([&, i] {
      results[kernel_slices + i] =
          Guarded([&] { return ReadApiCalls(ctx, SliceOf(*api_rows, api_slices, i), api_parts[i]); });
    });
  }
  Status& memops = results[kernel_slices + api_slices];
  memops = Guarded([&] { return ReadMemops(ctx, *db, target.events.memops); });
  if (memops.ok()) results.back() = Guarded([&] { return ReadNvtx(ctx, *db, target.events.nvtx); });
  for (auto& t : readers) t.join();
  for (const Status& st : results) {
    if (!st.ok()) {
      Error e = st.error();
      if (e.where.empty()) e.where = path;
      return e;
    }
  }
  Compact(kernel_parts);
  Compact(api_parts);
  ImportResult result;
  result.format_version = schema->version;
  result.rows_read = ctx.rows_read;
  result.rows_skipped = ctx.rows_skipped;
  LearnManifest(*db, *schema, result.learned);
  return result;
}

}  // namespace kscope::import::nsys
