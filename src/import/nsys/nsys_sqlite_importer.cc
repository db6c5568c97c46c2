#include "import/nsys/nsys_sqlite_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "analysis/nvtx_nesting.h"
#include "import/nsys/export_schema.h"
#include "import/nsys/string_mapper.h"
#include "store/column_codec.h"
#include "store/event_writer.h"
#include "util/sqlite_file.h"

namespace kscope::import::nsys {

namespace {

using store::kNull;

// NVTX event types (the export's ENUM_NSYS_EVENT_TYPE).
constexpr int64_t kNvtxPushPop = 59, kNvtxStartEnd = 60, kNvtxtPushPop = 70, kNvtxtStartEnd = 71;
constexpr int64_t kNvtxDomainCreate = 75;
// Problems stored in detail per file; beyond this they are only counted.
constexpr int64_t kMaxProblemDetails = 200;

int64_t Or(const sql::Stmt& q, int col, int64_t fallback) { return q.IsNull(col) ? fallback : q.Int(col); }

class Session {
 public:
  Session(std::string path, const ImportTarget& target, ExportSchema schema, sql::Db& src)
      : path_(std::move(path)), target_(target), schema_(std::move(schema)), src_(src), strings_(target.store) {}

  Result<ImportResult> Run();

 private:
  Status Problem(const std::string& table, int64_t rowid, std::string_view what, const std::string& raw);
  Result<sql::Stmt> Select(const std::string& table, const std::vector<std::string>& cols,
                           const std::string& where = "");
  Error ReadError(const std::string& table) const {
    return Error{path_, fmt::format("corrupt SQLite file while reading {} ({})", table, src_.ErrorMessage()),
                 "copy or export it again"};
  }
  Status ImportKernels();
  Status ImportApiCalls();
  Status ImportMemops();
  Status ImportNvtx();
  void LearnManifest(store::Manifest& m);

  std::string path_;
  const ImportTarget& target_;
  ExportSchema schema_;
  sql::Db& src_;
  StringMapper strings_;
  int64_t rows_read_ = 0;
  int64_t rows_skipped_ = 0;
};

Status Session::Problem(const std::string& table, int64_t rowid, std::string_view what, const std::string& raw) {
  ++rows_skipped_;
  if (rows_skipped_ > kMaxProblemDetails) return Status::Ok();
  return target_.store.AddProblem(target_.run_id, target_.source_id, fmt::format("{} rowid {}", table, rowid), what,
                                  raw);
}

Result<sql::Stmt> Session::Select(const std::string& table, const std::vector<std::string>& cols,
                                  const std::string& where) {
  auto q = src_.Prepare(fmt::format("SELECT rowid, {} FROM \"{}\" {}", schema_.SelectList(table, cols), table, where));
  if (!q.ok())
    return Error{path_, fmt::format("cannot read table {} ({})", table, src_.ErrorMessage()),
                 "the export may be corrupt: export it again"};
  return q;
}

Status Session::ImportKernels() {
  const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (!schema_.HasTable(table)) return Status::Ok();
  // Column order matches store::kernel::Col, shifted by one for rowid.
  auto q = Select(table, {"start",
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
                          "launchType"});
  if (!q.ok()) return q.error();
  store::EventWriter out(target_.store.db(), target_.run_id, store::kKernelStream);
  std::array<int64_t, store::kernel::kCount> row{};
  while (q->Step()) {
    const int64_t rowid = q->Int(0);
    if (q->IsNull(1) || q->IsNull(2) || q->IsNull(8)) {
      KSCOPE_RETURN_IF_ERROR(Problem(table, rowid, "start, end or demangledName is NULL", ""));
      continue;
    }
    if (q->Int(2) < q->Int(1)) {
      KSCOPE_RETURN_IF_ERROR(
          Problem(table, rowid, "ends before it starts", fmt::format("start={} end={}", q->Int(1), q->Int(2))));
      continue;
    }
    auto name = strings_.Map(q->Int(8));
    if (!name.ok()) return name.error();
    if (!*name) {
      KSCOPE_RETURN_IF_ERROR(Problem(table, rowid, "demangledName is not in StringIds", std::to_string(q->Int(8))));
      continue;
    }
    for (int c = 0; c < store::kernel::kCount; ++c) row[c] = Or(*q, c + 1, kNull);
    row[store::kernel::kName] = **name;
    for (int c : {store::kernel::kShortName, store::kernel::kMangledName}) {
      if (row[c] == kNull) continue;
      auto s = strings_.Map(row[c]);
      if (!s.ok()) return s.error();
      row[c] = s->value_or(kNull);
    }
    KSCOPE_RETURN_IF_ERROR(out.Append(row));
  }
  if (!q->status().ok()) return ReadError(table);
  rows_read_ += out.rows();
  return out.Finish();
}

Status Session::ImportApiCalls() {
  const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!schema_.HasTable(table)) return Status::Ok();
  auto q = Select(table, {"start", "end", "globalTid", "correlationId", "nameId", "returnValue"});
  if (!q.ok()) return q.error();
  store::EventWriter out(target_.store.db(), target_.run_id, store::kApiStream);
  std::array<int64_t, store::api::kCount> row{};
  while (q->Step()) {
    const int64_t rowid = q->Int(0);
    if (q->IsNull(1) || q->IsNull(2) || q->IsNull(5)) {
      KSCOPE_RETURN_IF_ERROR(Problem(table, rowid, "start, end or nameId is NULL", ""));
      continue;
    }
    auto name = strings_.Map(q->Int(5));
    if (!name.ok()) return name.error();
    if (!*name) {
      KSCOPE_RETURN_IF_ERROR(Problem(table, rowid, "nameId is not in StringIds", std::to_string(q->Int(5))));
      continue;
    }
    for (int c = 0; c < store::api::kCount; ++c) row[c] = Or(*q, c + 1, kNull);
    row[store::api::kName] = **name;
    KSCOPE_RETURN_IF_ERROR(out.Append(row));
  }
  if (!q->status().ok()) return ReadError(table);
  rows_read_ += out.rows();
  return out.Finish();
}

Status Session::ImportMemops() {
  store::EventWriter out(target_.store.db(), target_.run_id, store::kMemopStream);
  std::array<int64_t, store::memop::kCount> row{};
  const std::vector<std::string> common = {"start",         "end",       "deviceId", "contextId",  "streamId",
                                           "correlationId", "globalPid", "bytes",    "graphNodeId"};
  // Copy kinds are named by the export's own enum table.
  std::map<int64_t, int64_t> copy_label;
  if (schema_.HasTable("ENUM_CUDA_MEMCPY_OPER")) {
    auto e = src_.Prepare("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER");
    if (!e.ok()) return e.error();
    while (e->Step()) {
      auto id = target_.store.InternString("[CUDA memcpy " + e->Text(1) + "]");
      if (!id.ok()) return id.error();
      copy_label[e->Int(0)] = *id;
    }
  }
  for (const bool memset : {false, true}) {
    const std::string table = memset ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
    if (!schema_.HasTable(table)) continue;
    std::vector<std::string> cols = common;
    if (memset) {
      cols.insert(cols.end(), {"memKind", "memKind", "memKind"});
    } else {
      cols.insert(cols.end(), {"copyKind", "srcKind", "dstKind"});
    }
    auto q = Select(table, cols);
    if (!q.ok()) return q.error();
    auto memset_label = target_.store.InternString("[CUDA memset]");
    if (!memset_label.ok()) return memset_label.error();
    while (q->Step()) {
      const int64_t rowid = q->Int(0);
      if (q->IsNull(1) || q->IsNull(2) || q->IsNull(8)) {
        KSCOPE_RETURN_IF_ERROR(Problem(table, rowid, "start, end or bytes is NULL", ""));
        continue;
      }
      int64_t op = *memset_label;
      if (!memset) {
        auto it = copy_label.find(Or(*q, 10, kNull));
        if (it == copy_label.end()) {
          KSCOPE_RETURN_IF_ERROR(
              Problem(table, rowid, "copyKind is not in ENUM_CUDA_MEMCPY_OPER", std::to_string(Or(*q, 10, kNull))));
          continue;
        }
        op = it->second;
      }
      using namespace store::memop;  // NOLINT(google-build-using-namespace): column names
      for (int c = kStart; c <= kGlobalPid; ++c) row[c] = Or(*q, c + 1, kNull);
      row[kOperation] = op;
      row[kIsMemset] = memset ? 1 : 0;
      row[kBytes] = q->Int(8);
      row[kGraphNode] = Or(*q, 9, kNull);
      row[kCopyKind] = memset ? kNull : Or(*q, 10, kNull);
      row[kSrcKind] = memset ? kNull : Or(*q, 11, kNull);
      row[kDstKind] = Or(*q, 12, kNull);
      KSCOPE_RETURN_IF_ERROR(out.Append(row));
    }
    if (!q->status().ok()) return ReadError(table);
  }
  rows_read_ += out.rows();
  return out.Finish();
}

Status Session::ImportNvtx() {
  if (!schema_.nvtx_table) return Status::Ok();
  const std::string table = *schema_.nvtx_table;
  auto q = Select(table, {"start", "end", "eventType", "domainId", "text", "textId", "globalTid", "endGlobalTid"},
                  fmt::format("WHERE eventType IN ({},{},{},{},{}) ORDER BY start", kNvtxPushPop, kNvtxStartEnd,
                              kNvtxtPushPop, kNvtxtStartEnd, kNvtxDomainCreate));
  if (!q.ok()) return q.error();
  auto text_of = [&](const sql::Stmt& s) -> Result<int64_t> {
    if (!s.IsNull(6)) {
      if (const std::string* v = strings_.Value(s.Int(6))) return target_.store.InternString(*v);
    }
    return target_.store.InternString(s.IsNull(5) ? std::string() : s.Text(5));
  };
  // Domain names by (domain id, process); ranges are named 'domain:text'.
  std::map<std::pair<int64_t, int64_t>, int64_t> domains;
  std::vector<analysis::NvtxInterval> ranges;
  std::vector<std::array<int64_t, store::nvtx::kCount>> rows;
  while (q->Step()) {
    const int64_t rowid = q->Int(0);
    const int64_t type = Or(*q, 3, kNull);
    const int64_t pid_bits = Or(*q, 7, 0) & 0x0000FFFFFF000000LL;
    if (type == kNvtxDomainCreate) {
      auto name = text_of(*q);
      if (!name.ok()) return name.error();
      domains.try_emplace({Or(*q, 4, kNull), pid_bits}, *name);
      continue;
    }
    if (q->IsNull(1) || q->IsNull(7)) {
      KSCOPE_RETURN_IF_ERROR(Problem(table, rowid, "range without start or thread", ""));
      continue;
    }
    if (!q->IsNull(2) && q->Int(2) < q->Int(1)) {
      KSCOPE_RETURN_IF_ERROR(
          Problem(table, rowid, "range ends before it starts", fmt::format("start={} end={}", q->Int(1), q->Int(2))));
      continue;
    }
    auto text = text_of(*q);
    if (!text.ok()) return text.error();
    std::array<int64_t, store::nvtx::kCount> row{};
    row[store::nvtx::kStart] = q->Int(1);
    row[store::nvtx::kEnd] = Or(*q, 2, kNull);
    row[store::nvtx::kEventType] = type;
    auto d = domains.find({Or(*q, 4, kNull), pid_bits});
    row[store::nvtx::kDomain] = d == domains.end() ? kNull : d->second;
    row[store::nvtx::kText] = *text;
    row[store::nvtx::kGlobalTid] = q->Int(7);
    row[store::nvtx::kEndGlobalTid] = Or(*q, 8, kNull);
    rows.push_back(row);
  }
  if (!q->status().ok()) return ReadError(table);

  // Nesting: the tightest enclosing range on the same thread.
  int64_t max_ts = 0;
  for (const auto& r : rows) max_ts = std::max({max_ts, r[store::nvtx::kStart], r[store::nvtx::kEnd]});
  ranges.reserve(rows.size());
  for (const auto& r : rows) {
    ranges.push_back({r[store::nvtx::kStart], r[store::nvtx::kEnd] == kNull ? max_ts : r[store::nvtx::kEnd],
                      r[store::nvtx::kGlobalTid], r[store::nvtx::kEndGlobalTid] == kNull});
  }
  const analysis::NvtxNesting nesting = analysis::ComputeNvtxNesting(ranges);
  store::EventWriter out(target_.store.db(), target_.run_id, store::kNvtxStream);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i][store::nvtx::kParent] = nesting.parent[i] < 0 ? kNull : nesting.parent[i];
    rows[i][store::nvtx::kDepth] = nesting.depth[i] < 0 ? kNull : nesting.depth[i];
    KSCOPE_RETURN_IF_ERROR(out.Append(rows[i]));
  }
  rows_read_ += out.rows();
  return out.Finish();
}

void Session::LearnManifest(store::Manifest& m) {
  m.nsys_version = schema_.product_version;
  if (schema_.HasTable("TARGET_INFO_GPU")) {
    if (auto q = src_.Prepare("SELECT DISTINCT name FROM TARGET_INFO_GPU WHERE name IS NOT NULL ORDER BY id"); q.ok()) {
      std::string gpus;
      while (q->Step()) gpus += (gpus.empty() ? "" : ", ") + q->Text(0);
      if (!gpus.empty()) m.gpu = gpus;
    }
  }
  if (schema_.HasTable("TARGET_INFO_SYSTEM_ENV")) {
    if (auto q = src_.Prepare(
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
  if (schema_.HasTable("META_DATA_CAPTURE")) {
    if (auto q = src_.Prepare("SELECT name, value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:COMMAND' OR name GLOB "
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

Result<ImportResult> Session::Run() {
  KSCOPE_RETURN_IF_ERROR(strings_.Load(src_));
  KSCOPE_RETURN_IF_ERROR(ImportKernels());
  KSCOPE_RETURN_IF_ERROR(ImportApiCalls());
  KSCOPE_RETURN_IF_ERROR(ImportMemops());
  KSCOPE_RETURN_IF_ERROR(ImportNvtx());
  ImportResult result;
  result.format_version = schema_.version;
  result.rows_read = rows_read_;
  result.rows_skipped = rows_skipped_;
  LearnManifest(result.learned);
  return result;
}

}  // namespace

Result<ImportResult> NsysSqliteImporter::Import(const std::string& path, const ImportTarget& target) {
  KSCOPE_RETURN_IF_ERROR(CheckSqliteFile(path));
  auto src = sql::Db::Open(path, sql::OpenMode::kReadOnly);
  if (!src.ok()) return Error{path, "cannot open as an SQLite database", "check that it is an nsys SQLite export"};
  auto schema = DetectExportSchema(*src, path);
  if (!schema.ok()) return schema.error();
  Session session(path, target, std::move(schema).value(), *src);
  auto result = session.Run();
  if (!result.ok() && result.error().where.empty()) {
    Error e = result.error();
    e.where = path;
    return e;
  }
  return result;
}

}  // namespace kscope::import::nsys
