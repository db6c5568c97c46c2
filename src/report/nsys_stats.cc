#include "report/nsys_stats.h"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "report/nsys_numbers.h"
#include "report/nsys_report_catalog.h"

namespace kscope::report {

namespace {

using Builder = std::function<Result<Table>(sql::Db&, int64_t)>;

// Duration statistics of one group (its count is shown separately).
struct Stats {
  int64_t total;
  double mean, median;
  int64_t min, max;
  double stddev;
};
void AppendStats(std::vector<Cell>& row, const Stats& s) {
  row.emplace_back(Round1(s.mean));
  row.emplace_back(Round1(s.median));
  row.emplace_back(s.min);
  row.emplace_back(s.max);
  row.emplace_back(Round1(s.stddev));
}

// Reports of the shape: Time (%), Total Time (ns), <count>, Avg, Med, Min, Max, StdDev,
// then trailing text columns. `sql` selects: total, n, mean, median, min, max, stddev, texts...
Result<Table> TimeShareReport(sql::Db& db, int64_t run_id, const std::string& title, const std::string& count_name,
                              const std::vector<std::string>& text_columns, const std::string& sql) {
  auto q = db.Prepare(sql);
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  struct Row {
    int64_t n;
    Stats s;
    std::vector<std::string> texts;
  };
  std::vector<Row> rows;
  int64_t grand = 0;
  while (q->Step()) {
    Row r{q->Int(1), {q->Int(0), q->Double(2), q->Double(3), q->Int(4), q->Int(5), q->Double(6)}, {}};
    for (size_t i = 0; i < text_columns.size(); ++i) r.texts.push_back(q->Text(static_cast<int>(7 + i)));
    grand += r.s.total;
    rows.push_back(std::move(r));
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  Table t;
  t.title = title;
  t.columns = {"Time (%)", "Total Time (ns)", count_name, "Avg (ns)",
               "Med (ns)", "Min (ns)",        "Max (ns)", "StdDev (ns)"};
  t.columns.insert(t.columns.end(), text_columns.begin(), text_columns.end());
  for (const Row& r : rows) {
    std::vector<Cell> row;
    row.emplace_back(Round1(static_cast<double>(r.s.total) * 100.0 / static_cast<double>(grand)));
    row.emplace_back(r.s.total);
    row.emplace_back(r.n);
    AppendStats(row, r.s);
    for (const auto& s : r.texts) row.emplace_back(s);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Result<Table> KernSum(sql::Db& db, int64_t run_id) {
  return TimeShareReport(
      db, run_id, "cuda_gpu_kern_sum: CUDA GPU Kernel Summary", "Instances", {"Name"},
      fmt::format("SELECT k.total, k.n, k.mean, k.median, k.min, k.max, k.stddev, s.value {}", kKernelsInNsysOrder));
}

Result<Table> ApiSum(sql::Db& db, int64_t run_id) {
  return TimeShareReport(db, run_id, "cuda_api_sum: CUDA API Summary", "Num Calls", {"Name"},
                         "SELECT total, n, mean, median, min, max, stddev, name FROM api_summary "
                         "WHERE run_id = ?1 ORDER BY total DESC, name_id");
}

Result<Table> MemTimeSum(sql::Db& db, int64_t run_id) {
  return TimeShareReport(db, run_id, "cuda_gpu_mem_time_sum: CUDA GPU MemOps Summary (by Time)", "Count", {"Operation"},
                         "SELECT total, n, mean, median, min, max, stddev, operation FROM memop_summary "
                         "WHERE run_id = ?1 ORDER BY total DESC, operation");
}

Result<Table> NvtxSum(sql::Db& db, int64_t run_id) {
  return TimeShareReport(db, run_id, "nvtx_sum: NVTX Range Summary", "Instances", {"Style", "Range"},
                         "SELECT total, n, mean, median, min, max, stddev, style, range FROM nvtx_summary "
                         "WHERE run_id = ?1 ORDER BY total DESC, range, style");
}

Result<Table> MemSizeSum(sql::Db& db, int64_t run_id) {
  auto q = db.Prepare(
      "SELECT bytes_total, n, bytes_mean, bytes_median, bytes_min, bytes_max, bytes_stddev, operation "
      "FROM memop_summary WHERE run_id = ?1 ORDER BY bytes_total DESC, operation");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  Table t;
  t.title = "cuda_gpu_mem_size_sum: CUDA GPU MemOps Summary (by Size)";
  t.columns = {"Total (MB)", "Count", "Avg (MB)", "Med (MB)", "Min (MB)", "Max (MB)", "StdDev (MB)", "Operation"};
  while (q->Step()) {
    t.rows.push_back({Megabytes(static_cast<double>(q->Int(0))), q->Int(1), Megabytes(q->Double(2)),
                      Megabytes(q->Double(3)), Megabytes(static_cast<double>(q->Int(4))),
                      Megabytes(static_cast<double>(q->Int(5))), Megabytes(q->Double(6)), q->Text(7)});
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  return t;
}

Cell OptText(const sql::Stmt& q, int c) { return q.IsNull(c) ? Cell{} : Cell{q.Text(c)}; }
Cell OptInt(const sql::Stmt& q, int c) { return q.IsNull(c) ? Cell{} : Cell{q.Int(c)}; }

Result<Table> NvtxKernSum(sql::Db& db, int64_t run_id) {
  // nsys groups by (pid, tid, range, style, kernel) and sorts by range, pid, tid, total
  // time descending; ties keep the grouping order.
  auto q = db.Prepare(
      "SELECT k.range, k.style, k.pid, k.tid, k.range_instances, k.n, k.total, k.mean, k.median, k.min, k.max, "
      "k.stddev, s.value FROM nvtx_kernel_summary k JOIN string s ON s.id = k.kernel_name_id WHERE k.run_id = ?1 "
      "ORDER BY k.range, k.pid, k.tid, k.total DESC, k.style, s.value");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  Table t;
  t.title = "nvtx_kern_sum: NVTX Range Kernel Summary";
  t.columns = {"NVTX Range", "Style",    "PID",      "TID",      "NVTX Inst",   "Kern Inst",  "Total Time (ns)",
               "Avg (ns)",   "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Kernel Name"};
  while (q->Step()) {
    std::vector<Cell> row{OptText(*q, 0), OptText(*q, 1), OptInt(*q, 2), OptInt(*q, 3),
                          q->Int(4),      q->Int(5),      q->Int(6)};
    AppendStats(row, {q->Int(6), q->Double(7), q->Double(8), q->Int(9), q->Int(10), q->Double(11)});
    row.emplace_back(q->Text(12));
    t.rows.push_back(std::move(row));
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  return t;
}

Result<Table> NvtxGpuProjSum(sql::Db& db, int64_t run_id) {
  auto q = db.Prepare(
      "SELECT range, style, total, range_total, n, mean, median, min, max, stddev, gpu_ops, level_mean, "
      "children_mean FROM nvtx_projection_summary WHERE run_id = ?1 ORDER BY total DESC, range, style");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  Table t;
  t.title = "nvtx_gpu_proj_sum: NVTX GPU Projection Summary";
  t.columns = {"Range",         "Style",         "Total Proj Time (ns)", "Total Range Time (ns)", "Range Instances",
               "Proj Avg (ns)", "Proj Med (ns)", "Proj Min (ns)",        "Proj Max (ns)",         "Proj StdDev (ns)",
               "Total GPU Ops", "Avg GPU Ops",   "Avg Range Lvl",        "Avg Num Child"};
  while (q->Step()) {
    const int64_t n = q->Int(4);
    std::vector<Cell> row{q->Text(0), q->Text(1), q->Int(2), q->Int(3), n};
    AppendStats(row, {q->Int(2), q->Double(5), q->Double(6), q->Int(7), q->Int(8), q->Double(9)});
    row.emplace_back(q->Int(10));
    row.emplace_back(Round1(static_cast<double>(q->Int(10)) / static_cast<double>(n)));
    row.emplace_back(q->IsNull(11) ? Cell{} : Cell{Round1(q->Double(11))});
    row.emplace_back(Round1(q->Double(12)));
    t.rows.push_back(std::move(row));
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  return t;
}

const std::map<std::string_view, Builder>& Builders() {
  static const std::map<std::string_view, Builder> builders = {
      {"cuda_gpu_kern_sum", KernSum},        {"cuda_api_sum", ApiSum}, {"cuda_gpu_mem_time_sum", MemTimeSum},
      {"cuda_gpu_mem_size_sum", MemSizeSum}, {"nvtx_sum", NvtxSum},    {"nvtx_kern_sum", NvtxKernSum},
      {"nvtx_gpu_proj_sum", NvtxGpuProjSum},
  };
  return builders;
}

}  // namespace

const std::vector<std::string_view>& NsysReportNames() {
  static const std::vector<std::string_view> names = {"cuda_gpu_kern_sum",     "cuda_api_sum", "cuda_gpu_mem_time_sum",
                                                      "cuda_gpu_mem_size_sum", "nvtx_sum",     "nvtx_kern_sum",
                                                      "nvtx_gpu_proj_sum"};
  return names;
}

Result<Table> BuildNsysReport(store::Store& store, int64_t run_id, std::string_view report) {
  const NsysReportSpec* spec = FindNsysReport(report);
  if (spec == nullptr) return UnknownNsysReport(report);
  auto it = Builders().find(spec->name);
  if (it == Builders().end()) {
    return Error{"", fmt::format("'{}' is a trace report: it is read from the export itself", spec->name),
                 "kscope stats --report " + std::string(spec->name) + " RUN|FILE"};
  }
  auto run = store.GetRun(run_id);
  if (!run.ok()) return run.error();
  return it->second(store.db(), run_id);
}

}  // namespace kscope::report
