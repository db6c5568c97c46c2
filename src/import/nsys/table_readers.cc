#include "import/nsys/table_readers.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "import/nested_ranges.h"

namespace kscope::import::nsys {

namespace {
using store::kNull;
using store::nvtx::kDomainCreate;
}  // namespace

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
  store::EventWriter out = ctx.Writer(store::kKernelStream, slice.index);
  std::array<int64_t, store::kernel::kCount> row{};
  namespace k = store::kernel;
  while (q->Step()) {
    for (int c = 0; c < k::kCount; ++c) row[c] = Value(*q, c + 1);
    const int64_t rowid = q->Int(0);
    if (row[k::kStart] == kNull || row[k::kEnd] == kNull || row[k::kName] == kNull) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "start, end or demangledName is NULL", ""));
      continue;
    }
    if (auto bad = CheckTimes(*q, 1, 2, ctx.span_end)) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, *bad));
      continue;
    }
    ctx.Place(row[k::kStart], row[k::kEnd], row[k::kGlobalPid]);
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
    if (row[k::kName] > INT32_MAX) {
      return Error{ctx.path, "more than 2^31 strings in the store", "import into a new database"};
    }
    if (!facts.Put({row[k::kStart], row[k::kEnd], row[k::kCorrelation], row[k::kGlobalPid]},
                   static_cast<int32_t>(row[k::kName]))) {
      return Error{ctx.path, "more rows than the table's largest rowid allows", "the export changed while being read"};
    }
  }
  if (!q->status().ok()) return ctx.ReadError(*db, table);
  return ctx.Finish(out);
}

Status ReadApiCalls(FileContext& ctx, Slice slice, const analysis::OpIndex& ops, const analysis::CallRanges& ranges,
                    ApiFacts& facts) {
  const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  auto db = ctx.OpenExport();
  if (!db.ok()) return db.error();
  auto q = ctx.Select(*db, table, {"start", "end", "globalTid", "correlationId", "nameId", "returnValue"},
                      "WHERE rowid BETWEEN ?1 AND ?2");
  if (!q.ok()) return q.error();
  q->Bind(1, slice.first).Bind(2, slice.last);
  StringMapper strings(ctx.target.store, ctx.store_lock, ctx.strings);
  store::EventWriter out = ctx.Writer(store::kApiStream, slice.index);
  std::array<int64_t, store::api::kCount> row{};
  namespace a = store::api;
  std::vector<int32_t> containing;
  analysis::LaunchClaims& claims = facts.claims.emplace(ops);
  analysis::Durations* durations = nullptr;  // of the last call's function: calls come in runs
  int64_t durations_of = kNull;
  while (q->Step()) {
    for (int c = 0; c < a::kCount; ++c) row[c] = Value(*q, c + 1);
    const int64_t rowid = q->Int(0);
    if (row[a::kStart] == kNull || row[a::kEnd] == kNull || row[a::kName] == kNull) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "start, end or nameId is NULL", ""));
      continue;
    }
    if (auto bad = CheckTimes(*q, 1, 2, ctx.span_end)) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, *bad));
      continue;
    }
    ctx.Place(row[a::kStart], row[a::kEnd], row[a::kGlobalTid]);
    auto name = strings.Map(row[a::kName]);
    if (!name.ok()) return name.error();
    if (!*name) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "nameId is not in StringIds", std::to_string(row[a::kName])));
      continue;
    }
    row[a::kName] = **name;
    KSCOPE_RETURN_IF_ERROR(out.Append(row));
    if (row[a::kName] != durations_of) {
      durations = &facts.durations[row[a::kName]];
      durations_of = row[a::kName];
    }
    durations->Add(row[a::kEnd] - row[a::kStart]);
    const int64_t tid = row[a::kGlobalTid];
    std::optional<uint32_t> thread;  // looked up only for calls that launched work
    analysis::LinkCall(ops, ranges, claims, tid, row[a::kCorrelation], row[a::kStart], row[a::kEnd], containing,
                       [&](uint32_t op, int32_t r) {
                         if (!thread) thread = analysis::ThreadIndex(facts.threads, tid);
                         const uint32_t id = op < ops.kernels() ? op
                                                                : analysis::NsysFacts::kMemop |
                                                                      static_cast<uint32_t>(op - ops.kernels());
                         facts.launches.push_back({id, r, *thread});
                       });
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
      if (auto bad = CheckTimes(*q, 1, 2, ctx.span_end)) {
        KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, *bad));
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
      ctx.Place(row[m::kStart], row[m::kEnd], row[m::kGlobalPid]);
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
  auto q = ctx.Select(
      db, table, {"start", "end", "eventType", "domainId", "text", "textId", "globalTid", "endGlobalTid"},
      fmt::format("WHERE eventType IN ({},{},{},{},{}) ORDER BY start", store::nvtx::kPushPop, store::nvtx::kStartEnd,
                  store::nvtx::kNvtxtPushPop, store::nvtx::kNvtxtStartEnd, kDomainCreate));
  if (!q.ok()) return q.error();
  StringMapper strings(ctx.target.store, ctx.store_lock, ctx.strings);
  // A range's text is its registered string, else its own text, else empty.
  auto text_of = [&](const sql::Stmt& s) -> Result<int64_t> {
    if (!s.IsNull(6)) {
      if (const std::string* v = ctx.strings.Value(s.Int(6))) return strings.Intern(*v);
    }
    const std::string text = s.IsNull(5) ? std::string() : s.Text(5);
    if (auto e = StringPastBound(ctx.path, fmt::format("{} row {}'s text", table, s.Int(0)), text.size())) return *e;
    return strings.Intern(text);
  };
  namespace n = store::nvtx;
  // Domain names by (domain id, process); ranges are named 'domain:text'.
  std::map<std::pair<int64_t, int64_t>, int64_t> domains;
  std::vector<std::array<int64_t, n::kCount>> rows;
  while (q->Step()) {
    const int64_t rowid = q->Int(0);
    const int64_t type = Value(*q, 3);
    const int64_t pid_bits = (q->IsNull(7) ? 0 : q->Int(7)) & 0x0000FFFFFF000000LL;
    if (type == kDomainCreate) {
      auto name = text_of(*q);
      if (!name.ok()) return name.error();
      domains.try_emplace({Value(*q, 4), pid_bits}, *name);
      continue;
    }
    if (q->IsNull(1) || q->IsNull(7)) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, "range without start or thread", ""));
      continue;
    }
    if (auto bad = CheckTimes(*q, 1, 2, ctx.span_end, /*open_end=*/true)) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem(table, rowid, *bad));
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
    ctx.Place(row[n::kStart], row[n::kEnd], row[n::kGlobalTid]);
    row[n::kEndGlobalTid] = ctx.OnHost(row[n::kEndGlobalTid]);
    rows.push_back(row);
  }
  if (!q->status().ok()) return ctx.ReadError(db, table);

  // Ranges never closed end at the last range timestamp.
  int64_t max_ts = 0;
  for (const auto& r : rows) max_ts = std::max({max_ts, r[n::kStart], r[n::kEnd]});
  store::EventWriter out = ctx.Writer(store::kNvtxStream);
  KSCOPE_RETURN_IF_ERROR(WriteNestedRanges(rows, max_ts, out, facts));
  return ctx.Finish(out);
}

}  // namespace kscope::import::nsys

namespace kscope::import::nsys {

Status ReadThreadNames(FileContext& ctx, sql::Db& db) {
  const std::string table = "ThreadNames";
  if (!ctx.schema.HasTable(table)) return Status::Ok();
  auto q = ctx.Select(db, table, {"nameId", "globalTid"});
  if (!q.ok()) return q.error();
  const std::lock_guard<std::mutex> hold(ctx.store_lock);
  auto insert = ctx.target.store.db().Prepare(
      "INSERT OR REPLACE INTO thread_name (run_id, global_tid, name_id) VALUES (?1, ?2, ?3)");
  if (!insert.ok()) return insert.error();
  while (q->Step()) {
    if (q->IsNull(1) || q->IsNull(2)) continue;  // a thread without a name or id says nothing
    const std::string* name = ctx.strings.Value(q->Int(1));
    if (name == nullptr) continue;
    auto id = ctx.target.store.InternString(*name);
    if (!id.ok()) return id.error();
    KSCOPE_RETURN_IF_ERROR(insert->Bind(1, ctx.target.run_id).Bind(2, ctx.OnHost(q->Int(2))).Bind(3, *id).Run());
  }
  if (!q->status().ok()) return ctx.ReadError(db, table);
  return Status::Ok();
}

}  // namespace kscope::import::nsys
