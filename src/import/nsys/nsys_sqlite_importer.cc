#include "import/nsys/nsys_sqlite_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>
#include <type_traits>

#include "analysis/nvtx_nesting.h"
#include "import/nsys/export_schema.h"
#include "import/nsys/string_mapper.h"
#include "store/column_codec.h"
#include "store/event_writer.h"
#include "util/guarded.h"
#include "util/sqlite_file.h"

namespace kscope::import::nsys {

namespace {

using store::kNull;

// NVTX event types (the export's ENUM_NSYS_EVENT_TYPE).
constexpr int64_t kNvtxPushPop = 59, kNvtxStartEnd = 60, kNvtxtPushPop = 70, kNvtxtStartEnd = 71;
constexpr int64_t kNvtxDomainCreate = 75;
// Problems stored in detail per file; beyond this they are only counted.
constexpr int64_t kMaxProblemDetails = 200;

// A column that may be NULL, with a single call in the common case of a non-zero value.
int64_t Value(const sql::Stmt& q, int col) {
  const int64_t v = q.Int(col);
  return v == 0 && q.IsNull(col) ? kNull : v;
}

// What the reader threads of one file share. The store is used only under `store_lock`.
class FileContext {
 public:
  FileContext(const std::string& file, const ImportTarget& to, const ExportSchema& export_schema,
              const ExportStrings& export_strings)
      : path(file), target(to), schema(export_schema), strings(export_strings) {}

  const std::string& path;
  const ImportTarget& target;
  const ExportSchema& schema;
  const ExportStrings& strings;
  std::mutex store_lock;
  std::atomic<int64_t> rows_read{0};
  std::atomic<int64_t> rows_skipped{0};

  // Each reader thread reads through its own connection.
  // A slice is one forward scan: a small page cache does, and keeps memory per thread low.
  Result<sql::Db> OpenExport() const {
    auto db = sql::Db::Open(path, sql::OpenMode::kReadOnly);
    if (!db.ok()) return Error{path, "cannot open as an SQLite database", "check that it is an nsys SQLite export"};
    (void)db->Exec("PRAGMA cache_size=-256");
    return db;
  }

  Result<sql::Stmt> Select(sql::Db& db, const std::string& table, const std::vector<std::string>& cols,
                           const std::string& where = "") const {
    auto q = db.Prepare(fmt::format("SELECT rowid, {} FROM \"{}\" {}", schema.SelectList(table, cols), table, where));
    if (!q.ok()) {
      return Error{path, fmt::format("cannot read table {} ({})", table, db.ErrorMessage()),
                   "the export may be corrupt: export it again"};
    }
    return q;
  }

  Error ReadError(sql::Db& db, const std::string& table) const {
    return Error{path, fmt::format("corrupt SQLite file while reading {} ({})", table, db.ErrorMessage()),
                 "copy or export it again"};
  }

  Status Problem(const std::string& table, int64_t rowid, std::string_view what, const std::string& raw) {
    if (rows_skipped.fetch_add(1) >= kMaxProblemDetails) return Status::Ok();
    const std::lock_guard<std::mutex> hold(store_lock);
    return target.store.AddProblem(target.run_id, target.source_id, fmt::format("{} rowid {}", table, rowid), what,
                                   raw);
  }

  // About how many rows `table` holds (its largest rowid; 0 when empty or absent).
  Result<int64_t> RowEstimate(sql::Db& db, const std::string& table) const {
    if (!schema.HasTable(table)) return int64_t{0};
    auto q = db.Prepare("SELECT max(rowid) FROM \"" + table + "\"");
    if (!q.ok()) return ReadError(db, table);
    if (!q->Step()) return ReadError(db, table);
    return q->IsNull(0) ? int64_t{0} : std::max<int64_t>(q->Int(0), 0);
  }

  store::EventWriter Writer(const store::StreamSpec& spec) {
    return store::EventWriter(target.store.db(), target.run_id, spec, &store_lock);
  }

  Status Finish(store::EventWriter& out) {
    rows_read += out.rows();
    return out.Finish();
  }
};

// Rows whose rowid lies in [first, last]: a table is read in slices, one per thread.
struct Slice {
  int64_t first, last;
  size_t max_rows;  // rows the slice can hold (rowids are unique)
};

// Where one slice's rows go in the run's events: a region reserved up front, which the
// slice fills in place, so that no slice's rows are copied but by the final compaction.
struct FactRegion {
  std::array<std::vector<int64_t>*, 5> columns;
  size_t base = 0;
  size_t capacity = 0;
  size_t count = 0;

  [[nodiscard]] bool Put(const std::array<int64_t, 5>& values) {
    if (count == capacity) return false;
    for (size_t c = 0; c < values.size(); ++c) (*columns[c])[base + count] = values[c];
    ++count;
    return true;
  }
};

Status ReadKernels(FileContext& ctx, Slice slice, FactRegion& facts) {
  const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
  auto db = ctx.OpenExport();
  if (!db.ok()) return db.error();
  // Column order matches store::kernel::Col, shifted by one for rowid.
  auto q = ctx.Select(*db, table,
                      {"start",
                       "end",
                       "deviceId",
                       "contextId",
                       "streamId",
                       "correlationId",
                       "globalPid",
                       "demangledName",
                       "shortName",
                       "mangledName",
                       "gridX",
                       "gridY",
                       "gridZ",
                       "blockX",
                       "blockY",
                       "blockZ",
                       "registersPerThread",
                       "staticSharedMemory",
                       "dynamicSharedMemory",
                       "localMemoryPerThread",
                       "graphNodeId",
                       "launchType"},
                      "WHERE rowid BETWEEN ?1 AND ?2");
  if (!q.ok()) return q.error();
  q->Bind(1, slice.first).Bind(2, slice.last);
  StringMapper strings(ctx.target.store, ctx.store_lock, ctx.strings);
  store::EventWriter out = ctx.Writer(store::kKernelStream);
  std::array<int64_t, store::kernel::kCount> row{};
  namespace k = store::kernel;
  while (q->Step()) {
    for (int c = 0; c < k::kCount; ++c) row[c] = Value(*q, c + 1);
    const int64_t rowid = q->Int(0);
    if (row[k::kStart] == kNull || row[k::kEnd] == kNull || row[k::kName] == kNull) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "start, end or demangledName is NULL", ""));
      continue;
    }
    if (row[k::kEnd] < row[k::kStart]) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "ends before it starts",
                                         fmt::format("start={} end={}", row[k::kStart], row[k::kEnd])));
      continue;
    }
    auto name = strings.Map(row[k::kName]);
    if (!name.ok()) return name.error();
    if (!*name) {
      KSCOPE_RETURN_IF_ERROR(
          ctx.Problem(table, rowid, "demangledName is not in StringIds", std::to_string(row[k::kName])));
      continue;
    }
    row[k::kName] = **name;
    for (int c : {k::kShortName, k::kMangledName}) {
      if (row[c] == kNull) continue;
      auto s = strings.Map(row[c]);
      if (!s.ok()) return s.error();
      row[c] = s->value_or(kNull);
    }
    KSCOPE_RETURN_IF_ERROR(out.Append(row));
    if (!facts.Put({row[k::kStart], row[k::kEnd], row[k::kCorrelation], row[k::kGlobalPid], row[k::kName]})) {
      return Error{ctx.path, "more rows than the table's largest rowid allows", "the export changed while being read"};
    }
  }
  if (!q->status().ok()) return ctx.ReadError(*db, table);
  return ctx.Finish(out);
}

Status ReadApiCalls(FileContext& ctx, Slice slice, FactRegion& facts) {
  const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  auto db = ctx.OpenExport();
  if (!db.ok()) return db.error();
  auto q = ctx.Select(*db, table, {"start", "end", "globalTid", "correlationId", "nameId", "returnValue"},
                      "WHERE rowid BETWEEN ?1 AND ?2");
  if (!q.ok()) return q.error();
  q->Bind(1, slice.first).Bind(2, slice.last);
  StringMapper strings(ctx.target.store, ctx.store_lock, ctx.strings);
  store::EventWriter out = ctx.Writer(store::kApiStream);
  std::array<int64_t, store::api::kCount> row{};
  namespace a = store::api;
  while (q->Step()) {
    for (int c = 0; c < a::kCount; ++c) row[c] = Value(*q, c + 1);
    const int64_t rowid = q->Int(0);
    if (row[a::kStart] == kNull || row[a::kEnd] == kNull || row[a::kName] == kNull) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "start, end or nameId is NULL", ""));
      continue;
    }
    auto name = strings.Map(row[a::kName]);
    if (!name.ok()) return name.error();
    if (!*name) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "nameId is not in StringIds", std::to_string(row[a::kName])));
      continue;
    }
    row[a::kName] = **name;
    KSCOPE_RETURN_IF_ERROR(out.Append(row));
    if (!facts.Put({row[a::kStart], row[a::kEnd], row[a::kGlobalTid], row[a::kCorrelation], row[a::kName]})) {
      return Error{ctx.path, "more rows than the table's largest rowid allows", "the export changed while being read"};
    }
  }
  if (!q->status().ok()) return ctx.ReadError(*db, table);
  return ctx.Finish(out);
}

Status ReadMemops(FileContext& ctx, sql::Db& db, analysis::NsysEvents::Memops& facts) {
  StringMapper strings(ctx.target.store, ctx.store_lock, ctx.strings);
  store::EventWriter out = ctx.Writer(store::kMemopStream);
  // Copy kinds are named by the export's own enum table.
  std::map<int64_t, int64_t> copy_label;
  if (ctx.schema.HasTable("ENUM_CUDA_MEMCPY_OPER")) {
    auto e = db.Prepare("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER");
    if (!e.ok()) return e.error();
    while (e->Step()) {
      auto id = strings.Intern("[CUDA memcpy " + e->Text(1) + "]");
      if (!id.ok()) return id.error();
      copy_label[e->Int(0)] = *id;
    }
  }
  auto memset_label = strings.Intern("[CUDA memset]");
  if (!memset_label.ok()) return memset_label.error();
  std::array<int64_t, store::memop::kCount> row{};
  namespace m = store::memop;
  for (const bool memset : {false, true}) {
    const std::string table = memset ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
    if (!ctx.schema.HasTable(table)) continue;
    std::vector<std::string> cols = {"start",         "end",       "deviceId", "contextId",  "streamId",
                                     "correlationId", "globalPid", "bytes",    "graphNodeId"};
    if (memset) {
      cols.insert(cols.end(), {"memKind", "memKind", "memKind"});
    } else {
      cols.insert(cols.end(), {"copyKind", "srcKind", "dstKind"});
    }
    auto q = ctx.Select(db, table, cols);
    if (!q.ok()) return q.error();
    while (q->Step()) {
      const int64_t rowid = q->Int(0);
      if (q->IsNull(1) || q->IsNull(2) || q->IsNull(8)) {
        KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "start, end or bytes is NULL", ""));
        continue;
      }
      int64_t op = *memset_label;
      if (!memset) {
        auto it = copy_label.find(Value(*q, 10));
        if (it == copy_label.end()) {
          KSCOPE_RETURN_IF_ERROR(
              ctx.Problem(table, rowid, "copyKind is not in ENUM_CUDA_MEMCPY_OPER", std::to_string(Value(*q, 10))));
          continue;
        }
        op = it->second;
      }
      for (int c = m::kStart; c <= m::kGlobalPid; ++c) row[c] = Value(*q, c + 1);
      row[m::kOperation] = op;
      row[m::kIsMemset] = memset ? 1 : 0;
      row[m::kBytes] = q->Int(8);
      row[m::kGraphNode] = Value(*q, 9);
      row[m::kCopyKind] = memset ? kNull : Value(*q, 10);
      row[m::kSrcKind] = memset ? kNull : Value(*q, 11);
      row[m::kDstKind] = Value(*q, 12);
      KSCOPE_RETURN_IF_ERROR(out.Append(row));
      facts.start.push_back(row[m::kStart]);
      facts.end.push_back(row[m::kEnd]);
      facts.correlation.push_back(row[m::kCorrelation]);
      facts.global_pid.push_back(row[m::kGlobalPid]);
      facts.operation.push_back(op);
      facts.bytes.push_back(row[m::kBytes]);
    }
    if (!q->status().ok()) return ctx.ReadError(db, table);
  }
  return ctx.Finish(out);
}

Status ReadNvtx(FileContext& ctx, sql::Db& db, analysis::NsysEvents::Nvtx& facts) {
  if (!ctx.schema.nvtx_table) return Status::Ok();
  const std::string table = *ctx.schema.nvtx_table;
  auto q =
      ctx.Select(db, table, {"start", "end", "eventType", "domainId", "text", "textId", "globalTid", "endGlobalTid"},
                 fmt::format("WHERE eventType IN ({},{},{},{},{}) ORDER BY start", kNvtxPushPop, kNvtxStartEnd,
                             kNvtxtPushPop, kNvtxtStartEnd, kNvtxDomainCreate));
  if (!q.ok()) return q.error();
  StringMapper strings(ctx.target.store, ctx.store_lock, ctx.strings);
  // A range's text is its registered string, else its own text, else empty.
  auto text_of = [&](const sql::Stmt& s) -> Result<int64_t> {
    if (!s.IsNull(6)) {
      if (const std::string* v = ctx.strings.Value(s.Int(6))) return strings.Intern(*v);
    }
    return strings.Intern(s.IsNull(5) ? std::string() : s.Text(5));
  };
  namespace n = store::nvtx;
  // Domain names by (domain id, process); ranges are named 'domain:text'.
  std::map<std::pair<int64_t, int64_t>, int64_t> domains;
  std::vector<std::array<int64_t, n::kCount>> rows;
  while (q->Step()) {
    const int64_t rowid = q->Int(0);
    const int64_t type = Value(*q, 3);
    const int64_t pid_bits = (q->IsNull(7) ? 0 : q->Int(7)) & 0x0000FFFFFF000000LL;
    if (type == kNvtxDomainCreate) {
      auto name = text_of(*q);
      if (!name.ok()) return name.error();
      domains.try_emplace({Value(*q, 4), pid_bits}, *name);
      continue;
    }
    if (q->IsNull(1) || q->IsNull(7)) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "range without start or thread", ""));
      continue;
    }
    if (!q->IsNull(2) && q->Int(2) < q->Int(1)) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "range ends before it starts",
                                         fmt::format("start={} end={}", q->Int(1), q->Int(2))));
      continue;
    }
    auto text = text_of(*q);
    if (!text.ok()) return text.error();
    std::array<int64_t, n::kCount> row{};
    row[n::kStart] = q->Int(1);
    row[n::kEnd] = Value(*q, 2);
    row[n::kEventType] = type;
    auto d = domains.find({Value(*q, 4), pid_bits});
    row[n::kDomain] = d == domains.end() ? kNull : d->second;
    row[n::kText] = *text;
    row[n::kGlobalTid] = q->Int(7);
    row[n::kEndGlobalTid] = Value(*q, 8);
    rows.push_back(row);
  }
  if (!q->status().ok()) return ctx.ReadError(db, table);

  // Nesting: the tightest enclosing range on the same thread, among ranges closed on the
  // thread that opened them. Ranges never closed end at the last range timestamp.
  int64_t max_ts = 0;
  for (const auto& r : rows) max_ts = std::max({max_ts, r[n::kStart], r[n::kEnd]});
  std::vector<analysis::NvtxInterval> intervals;
  intervals.reserve(rows.size());
  for (const auto& r : rows) {
    intervals.push_back(
        {r[n::kStart], r[n::kEnd] == kNull ? max_ts : r[n::kEnd], r[n::kGlobalTid], r[n::kEndGlobalTid] == kNull});
  }
  const analysis::NvtxNesting nesting = analysis::ComputeNvtxNesting(intervals);
  // Rows of this file follow those of earlier files of the run: parents are run-wide rows.
  const auto base = static_cast<int64_t>(facts.start.size());
  store::EventWriter out = ctx.Writer(store::kNvtxStream);
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    r[n::kParent] = nesting.parent[i] < 0 ? kNull : base + nesting.parent[i];
    r[n::kDepth] = nesting.depth[i] < 0 ? kNull : nesting.depth[i];
    KSCOPE_RETURN_IF_ERROR(out.Append(r));
    facts.start.push_back(r[n::kStart]);
    facts.end.push_back(r[n::kEnd]);
    facts.event_type.push_back(r[n::kEventType]);
    facts.domain.push_back(r[n::kDomain]);
    facts.text.push_back(r[n::kText]);
    facts.global_tid.push_back(r[n::kGlobalTid]);
    facts.end_global_tid.push_back(r[n::kEndGlobalTid]);
    facts.parent.push_back(r[n::kParent]);
    facts.depth.push_back(r[n::kDepth]);
  }
  return ctx.Finish(out);
}

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
  return {first, i + 1 == n ? INT64_MAX : first + per - 1, static_cast<size_t>(per)};
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

void LearnManifest(sql::Db& db, const ExportSchema& schema, store::Manifest& m) {
  m.nsys_version = schema.product_version;
  if (schema.HasTable("TARGET_INFO_GPU")) {
    if (auto q = db.Prepare("SELECT DISTINCT name FROM TARGET_INFO_GPU WHERE name IS NOT NULL ORDER BY id"); q.ok()) {
      std::string gpus;
      while (q->Step()) gpus += (gpus.empty() ? "" : ", ") + q->Text(0);
      if (!gpus.empty()) m.gpu = gpus;
    }
  }
  if (schema.HasTable("TARGET_INFO_SYSTEM_ENV")) {
    if (auto q = db.Prepare(
            "SELECT name, value FROM TARGET_INFO_SYSTEM_ENV WHERE name IN ('NvDriverVersion', 'CudaDriverVersion')");
        q.ok()) {
      while (q->Step()) {
        const std::string name = q->Text(0);
        const std::string value = q->Text(1);
        if (name == "NvDriverVersion") m.driver = value;
        if (name == "CudaDriverVersion") {
          const int v = std::atoi(value.c_str());
          if (v > 0) m.cuda_version = fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
        }
      }
    }
  }
  if (schema.HasTable("META_DATA_CAPTURE")) {
    if (auto q = db.Prepare("SELECT name, value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:COMMAND' OR name GLOB "
                            "'PROCESS_0:ARGUMENT_[0-9]*'");
        q.ok()) {
      std::string command;
      std::map<int, std::string> args;
      while (q->Step()) {
        const std::string name = q->Text(0);
        if (name == "PROCESS_0:COMMAND") {
          command = q->Text(1);
        } else {
          args[std::atoi(name.c_str() + std::string_view("PROCESS_0:ARGUMENT_").size())] = q->Text(1);
        }
      }
      for (const auto& [i, a] : args) command += " " + a;
      if (!command.empty()) m.command = command;
    }
  }
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
