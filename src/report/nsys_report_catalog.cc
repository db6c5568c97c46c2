#include "report/nsys_report_catalog.h"

#include <fmt/format.h>

#include "store/event_streams.h"

namespace kscope::report {

namespace {

constexpr std::string_view kNoNvtx = "does not contain NV Tools Extension (NVTX) data.";
constexpr std::string_view kNoKernels = "does not contain CUDA kernel data.";
constexpr std::string_view kNoApiTrace = "does not contain CUDA trace data.";
constexpr std::string_view kNoApiData = "does not contain CUDA API data.";
constexpr std::string_view kNoMemory = "does not contain GPU memory data.";
constexpr std::string_view kNoGpuTrace = "does not contain GPU trace data.";

// One of a report's checks: the data it needs and nsys's sentence when it is absent.
struct Check {
  bool present;
  std::string_view missing;
};

std::vector<Check> ChecksOf(std::string_view report, const NsysDataPresent& d) {
  const bool memory = d.memcpys || d.memsets;
  if (report == "cuda_gpu_kern_sum") return {{d.kernels, kNoKernels}};
  if (report == "cuda_api_sum" || report == "cuda_api_trace") return {{d.api_calls, kNoApiTrace}};
  if (report == "cuda_gpu_mem_time_sum" || report == "cuda_gpu_mem_size_sum") return {{memory, kNoMemory}};
  if (report == "nvtx_sum" || report == "nvtx_pushpop_trace") return {{d.nvtx, kNoNvtx}};
  if (report == "nvtx_kern_sum") return {{d.nvtx, kNoNvtx}, {d.kernels, kNoKernels}, {d.api_calls, kNoApiData}};
  if (report == "nvtx_gpu_proj_sum") return {{d.nvtx, kNoNvtx}, {d.api_calls, kNoApiData}};
  if (report == "cuda_gpu_trace") return {{d.kernels || memory, kNoGpuTrace}};
  return {};
}

bool HasTable(sql::Db& db, std::string_view table, Status& status) {
  auto q = db.Prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1");
  if (!q.ok()) {
    status = q.error();
    return false;
  }
  q->Bind(1, table);
  const bool found = q->Step();
  if (!q->status().ok()) status = q->status();
  return found;
}

}  // namespace

const std::vector<NsysReportSpec>& NsysReports() {
  using K = NsysReportKind;
  static const std::vector<NsysReportSpec> reports = {
      {"cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", K::kSummary, "gpukernsum"},
      {"cuda_api_sum", "CUDA API Summary", K::kSummary, "cudaapisum"},
      {"cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)", K::kSummary, "gpumemtimesum"},
      {"cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)", K::kSummary, "gpumemsizesum"},
      {"nvtx_sum", "NVTX Range Summary", K::kSummary, "nvtxsum"},
      {"nvtx_kern_sum", "NVTX Range Kernel Summary", K::kSummary, "nvtxkernsum"},
      {"nvtx_gpu_proj_sum", "NVTX GPU Projection Summary", K::kSummary, ""},
      {"cuda_gpu_trace", "CUDA GPU Trace", K::kTrace, "gputrace"},
      {"cuda_api_trace", "CUDA API Trace", K::kTrace, "cudaapitrace"},
      {"nvtx_pushpop_trace", "NVTX Push/Pop Range Trace", K::kTrace, "nvtxpptrace"},
  };
  return reports;
}

const NsysReportSpec* FindNsysReport(std::string_view name) {
  for (const auto& r : NsysReports()) {
    if (r.name == name || (!r.old_name.empty() && r.old_name == name)) return &r;
  }
  return nullptr;
}

Error UnknownNsysReport(std::string_view name) {
  std::string known, old;
  for (const auto& r : NsysReports()) {
    known += (known.empty() ? "" : ", ") + std::string(r.name);
    if (!r.old_name.empty()) old += (old.empty() ? "" : ", ") + fmt::format("{} ({})", r.old_name, r.name);
  }
  return Error{"", fmt::format("unknown report '{}'", name),
               fmt::format("kscope has: {}; and by their older nsys names: {}", known, old)};
}

std::optional<std::string> NsysSkipReason(const NsysReportSpec& report, const NsysDataPresent& present,
                                          std::string_view file) {
  for (const Check& c : ChecksOf(report.name, present)) {
    if (!c.present) return fmt::format("{} {}", file, c.missing);
  }
  return std::nullopt;
}

Result<NsysDataPresent> DataInExport(sql::Db& export_db) {
  Status status;
  NsysDataPresent d;
  d.kernels = HasTable(export_db, "CUPTI_ACTIVITY_KIND_KERNEL", status);
  d.api_calls = HasTable(export_db, "CUPTI_ACTIVITY_KIND_RUNTIME", status);
  d.memcpys = HasTable(export_db, "CUPTI_ACTIVITY_KIND_MEMCPY", status);
  d.memsets = HasTable(export_db, "CUPTI_ACTIVITY_KIND_MEMSET", status);
  d.nvtx = HasTable(export_db, "NVTX_EVENTS", status);
  if (!status.ok()) return status.error();
  return d;
}

Result<NsysDataPresent> DataInRun(store::Store& store, int64_t run_id) {
  auto run = store.GetRun(run_id);
  if (!run.ok()) return run.error();
  NsysDataPresent d;
  for (auto [spec, flag] : {std::pair{&store::kKernelStream, &d.kernels}, std::pair{&store::kApiStream, &d.api_calls},
                            std::pair{&store::kMemopStream, &d.memcpys}, std::pair{&store::kNvtxStream, &d.nvtx}}) {
    auto rows = store.StreamRows(run_id, spec->name);
    if (!rows.ok()) return rows.error();
    *flag = *rows > 0;
  }
  d.memsets = d.memcpys;  // the memop stream holds both; the reports ask for either
  return d;
}

Result<std::vector<std::string>> RunExportPaths(store::Store& store, int64_t run_id) {
  auto q = store.db().Prepare("SELECT path FROM source_file WHERE run_id = ?1 AND format = 'nsys-sqlite' ORDER BY id");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  std::vector<std::string> paths;
  while (q->Step()) paths.push_back(q->Text(0));
  KSCOPE_RETURN_IF_ERROR(q->status());
  return paths;
}

}  // namespace kscope::report
