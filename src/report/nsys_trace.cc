#include "report/nsys_trace.h"

#include <fmt/format.h>

#include <functional>

#include "report/nsys_numbers.h"
#include "report/nsys_trace_nvtx.h"

namespace kscope::report {

namespace {

bool HasTable(sql::Db& db, std::string_view table) {
  auto q = db.Prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1");
  if (!q.ok()) return false;
  q->Bind(1, table);
  return q->Step();
}

bool HasColumn(sql::Db& db, std::string_view table, std::string_view column) {
  auto q = db.Prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2");
  if (!q.ok()) return false;
  q->Bind(1, table).Bind(2, column);
  return q->Step();
}

Cell IntOrEmpty(const sql::Stmt& q, int c) { return q.IsNull(c) ? Cell{} : Cell{q.Int(c)}; }
Cell TextOrEmpty(const sql::Stmt& q, int c) { return q.IsNull(c) ? Cell{} : Cell{q.Text(c)}; }
// A byte count in MB, as nsys's ':mem_B' columns print it.
Cell MbOrEmpty(const sql::Stmt& q, int c) {
  return q.IsNull(c) ? Cell{} : Cell{Megabytes(static_cast<double>(q.Int(c)))};
}

Status StreamRows(sql::Db& db, const std::string& sql, const std::string& title,
                  const std::vector<std::string>& columns, RowSink& sink,
                  const std::function<void(const sql::Stmt&, std::vector<Cell>&)>& row_of) {
  auto q = db.Prepare(sql);
  if (!q.ok()) return q.error();
  sink.Begin(title, columns);
  std::vector<Cell> row;
  while (q->Step()) {
    row.clear();
    row_of(*q, row);
    sink.Row(row);
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  sink.End();
  return Status::Ok();
}

// Kernels, copies and sets by start time. Each table's part selects the same 20 columns; a
// missing table (or a column older exports lack) leaves its part out (or NULL).
Status GpuTrace(sql::Db& db, const std::string& title, RowSink& sink) {
  std::vector<std::string> parts;
  auto green = [&](std::string_view table) {
    return HasColumn(db, table, "greenContextId") ? std::string("t.greenContextId") : std::string("NULL");
  };
  const bool kinds = HasTable(db, "ENUM_CUDA_MEM_KIND");
  if (HasTable(db, "CUPTI_ACTIVITY_KIND_KERNEL")) {
    parts.push_back(fmt::format(
        "SELECT 0 AS part, t.rowid AS row, t.start, t.end - t.start AS dur, t.correlationId AS corr, t.gridX AS gx, "
        "t.gridY AS gy, t.gridZ AS gz, t.blockX AS bx, t.blockY AS by, t.blockZ AS bz, t.registersPerThread AS regs, "
        "t.staticSharedMemory AS smem, t.dynamicSharedMemory AS dmem, NULL AS bytes, NULL AS src, NULL AS dst, "
        "t.deviceId AS dev, t.contextId AS ctx, {} AS green, t.streamId AS strm, s.value AS opname "
        "FROM CUPTI_ACTIVITY_KIND_KERNEL t LEFT JOIN StringIds s ON s.id = t.demangledName",
        green("CUPTI_ACTIVITY_KIND_KERNEL")));
  }
  if (HasTable(db, "CUPTI_ACTIVITY_KIND_MEMCPY")) {
    const bool opers = HasTable(db, "ENUM_CUDA_MEMCPY_OPER");
    parts.push_back(fmt::format(
        "SELECT 1, t.rowid, t.start, t.end - t.start, t.correlationId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
        "NULL, t.bytes, {}, {}, t.deviceId, t.contextId, {}, t.streamId, {} FROM CUPTI_ACTIVITY_KIND_MEMCPY t {} {}",
        kinds ? "sk.label" : "NULL", kinds ? "dk.label" : "NULL", green("CUPTI_ACTIVITY_KIND_MEMCPY"),
        opers ? "'[CUDA memcpy ' || op.label || ']'" : "NULL",
        opers ? "LEFT JOIN ENUM_CUDA_MEMCPY_OPER op ON op.id = t.copyKind" : "",
        kinds ? "LEFT JOIN ENUM_CUDA_MEM_KIND sk ON sk.id = t.srcKind LEFT JOIN ENUM_CUDA_MEM_KIND dk ON dk.id = "
                "t.dstKind"
              : ""));
  }
  if (HasTable(db, "CUPTI_ACTIVITY_KIND_MEMSET")) {
    parts.push_back(fmt::format(
        "SELECT 2, t.rowid, t.start, t.end - t.start, t.correlationId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
        "NULL, t.bytes, {}, NULL, t.deviceId, t.contextId, {}, t.streamId, '[CUDA memset]' "
        "FROM CUPTI_ACTIVITY_KIND_MEMSET t {}",
        kinds ? "mk.label" : "NULL", green("CUPTI_ACTIVITY_KIND_MEMSET"),
        kinds ? "LEFT JOIN ENUM_CUDA_MEM_KIND mk ON mk.id = t.memKind" : ""));
  }
  std::string ops;
  for (const auto& p : parts) ops += (ops.empty() ? "" : " UNION ALL ") + p;
  const std::string gpu_name = HasTable(db, "TARGET_INFO_GPU") ? "g.name" : "NULL";
  const std::string gpu_join = HasTable(db, "TARGET_INFO_GPU") ? "LEFT JOIN TARGET_INFO_GPU g ON g.id = ops.dev" : "";
  // Throughput in bytes per second with nsys's integer arithmetic: bytes * (1e9 / duration).
  const std::string sql = fmt::format(
      "WITH ops AS ({}) SELECT start, dur, corr, gx, gy, gz, bx, by, bz, regs, smem, dmem, bytes, "
      "CASE WHEN bytes IS NULL THEN NULL ELSE bytes * (1000000000 / dur) END, src, dst, "
      "printf('%s (%d)', {}, dev), ctx, NULLIF(green, 0), strm, opname FROM ops {} ORDER BY start, part, row",
      ops, gpu_name, gpu_join);
  const std::vector<std::string> columns = {
      "Start (ns)", "Duration (ns)", "CorrId",  "GrdX",         "GrdY",         "GrdZ",       "BlkX",
      "BlkY",       "BlkZ",          "Reg/Trd", "StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)", "Throughput (MB/s)",
      "SrcMemKd",   "DstMemKd",      "Device",  "Ctx",          "GreenCtx",     "Strm",       "Name"};
  return StreamRows(db, sql, title, columns, sink, [](const sql::Stmt& q, std::vector<Cell>& row) {
    for (int c = 0; c < 10; ++c) row.push_back(IntOrEmpty(q, c));
    row.push_back(MbOrEmpty(q, 10));
    row.push_back(MbOrEmpty(q, 11));
    row.push_back(MbOrEmpty(q, 12));
    row.push_back(MbOrEmpty(q, 13));
    row.push_back(TextOrEmpty(q, 14));
    row.push_back(TextOrEmpty(q, 15));
    row.push_back(TextOrEmpty(q, 16));
    row.push_back(IntOrEmpty(q, 17));
    row.push_back(IntOrEmpty(q, 18));
    row.push_back(IntOrEmpty(q, 19));
    row.push_back(TextOrEmpty(q, 20));
  });
}

// CUDA runtime and driver calls by start time, with their thread's priority and name. A
// name's 4-digit version suffix ('_v3020') is dropped as nsys drops it; longer ones stay.
Status ApiTrace(sql::Db& db, const std::string& title, RowSink& sink) {
  const bool threads = HasTable(db, "ThreadNames");
  const std::string sql = fmt::format(
      "SELECT a.start, a.end - a.start, CASE substr(n.value, -6, 2) WHEN '_v' THEN substr(n.value, 1, "
      "length(n.value) - 6) ELSE n.value END, a.returnValue, a.correlationId, (a.globalTid >> 24) & 0xFFFFFF, "
      "a.globalTid & 0xFFFFFF, {}, {} FROM CUPTI_ACTIVITY_KIND_RUNTIME a LEFT JOIN StringIds n ON n.id = a.nameId {} "
      "ORDER BY a.start, a.rowid",
      threads ? "t.priority" : "NULL", threads ? "ts.value" : "NULL",
      threads ? "LEFT JOIN ThreadNames t ON t.globalTid = a.globalTid LEFT JOIN StringIds ts ON ts.id = t.nameId" : "");
  const std::vector<std::string> columns = {"Start (ns)", "Duration (ns)", "Name",  "Result",     "CorrID",
                                            "Pid",        "Tid",           "T-Pri", "Thread Name"};
  return StreamRows(db, sql, title, columns, sink, [](const sql::Stmt& q, std::vector<Cell>& row) {
    row.push_back(IntOrEmpty(q, 0));
    row.push_back(IntOrEmpty(q, 1));
    row.push_back(TextOrEmpty(q, 2));
    for (int c = 3; c < 8; ++c) row.push_back(IntOrEmpty(q, c));
    row.push_back(TextOrEmpty(q, 8));
  });
}

}  // namespace

Status StreamNsysTrace(sql::Db& export_db, const NsysReportSpec& report, RowSink& sink) {
  const std::string title = fmt::format("{}: {}", report.name, report.title);
  if (report.name == "cuda_gpu_trace") return GpuTrace(export_db, title, sink);
  if (report.name == "cuda_api_trace") return ApiTrace(export_db, title, sink);
  if (report.name == "nvtx_pushpop_trace") return NvtxPushPopTrace(export_db, title, sink);
  return Error{"", fmt::format("'{}' is not a trace report", report.name), ""};
}

}  // namespace kscope::report
