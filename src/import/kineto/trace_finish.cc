// The end of one trace's import (TraceToStore::Finish): what needs the whole file.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "analysis/timeline/launch_index.h"
#include "import/kineto/trace_to_store.h"
#include "import/nested_ranges.h"
#include "import/shared_correlations.h"

namespace kscope::import::kineto {

namespace {
using store::kNull;
}  // namespace

Result<ImportResult> TraceToStore::Finish() {
  if (!host_pid_ && !pending_gpu_.empty()) {  // no CPU event named the process: it stays unnamed
    host_pid_ = 0;
    std::vector<TraceEvent> pending;
    pending.swap(pending_gpu_);
    for (const TraceEvent& g : pending) KSCOPE_RETURN_IF_ERROR(OnEvent(g));
  }
  const int64_t kernels = kernels_.rows();
  if (kernels == 0 && unread_kernels_ > 0 && !target_.allow_no_kernels) {
    return Error{path_,
                 fmt::format("none of its {} kernel events could be read: {}", unread_kernels_, first_unread_kernel_),
                 "write ts and dur as JSON numbers and pid and tid as the profiler does (torch.profiler's "
                 "export_chrome_trace)"};
  }
  if (kernels == 0 && !target_.allow_no_kernels) {
    return Error{path_, "trace without any GPU kernel (recorded without CUDA activity, or outside its window)",
                 "record with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])"};
  }
  for (auto* w : {&kernels_, &memops_, &api_}) {
    rows_read_ += w->rows();
    KSCOPE_RETURN_IF_ERROR(w->Finish());
  }
  KSCOPE_RETURN_IF_ERROR(WriteRanges());
  LinkLaunches();
  KSCOPE_RETURN_IF_ERROR(
      CheckSharedCorrelations(path_, target_, shared_correlations_,
                              "export the trace again from one profiler session: prof.export_chrome_trace(...)"));
  KSCOPE_RETURN_IF_ERROR(CountUnlaunched());
  KSCOPE_RETURN_IF_ERROR(WriteThreadNames());
  KSCOPE_RETURN_IF_ERROR(WriteCollectiveMessages());
  for (const auto& [category, count] : unknown_categories_) {
    TraceEvent e;
    e.cat = category;
    KSCOPE_RETURN_IF_ERROR(
        Problem(e, fmt::format("{} events of a category kscope does not read (left out)", count), false));
  }
  ImportResult result;
  result.format_version = schema_version_.empty() ? "kineto" : "kineto schema " + schema_version_;
  result.rows_read = rows_read_;
  result.rows_skipped = rows_skipped_;
  result.shared_correlations = shared_correlations_;
  result.learned = Learned();
  return result;
}

// Ranges in start order (a trace need not be), nested on their thread, written and added to
// the run's facts after its earlier files' ranges.
Status TraceToStore::WriteRanges() {
  namespace n = store::nvtx;
  std::stable_sort(ranges_.begin(), ranges_.end(),
                   [](const auto& a, const auto& b) { return a[n::kStart] < b[n::kStart]; });
  store::EventWriter out(target_.store.db(), target_.run_id, store::kNvtxStream);
  KSCOPE_RETURN_IF_ERROR(WriteNestedRanges(ranges_, /*open_end=*/0, out, target_.facts.nvtx));  // all closed
  rows_read_ += out.rows();
  ranges_ = {};
  return out.Finish();
}

// Each GPU operation of this file to its launching CUDA call (same process and correlation
// id) and the ranges around that call, as the nsys importer links them.
void TraceToStore::LinkLaunches() {
  auto& f = target_.facts;
  std::vector<int64_t> kernel_pid(kernel_base_, kNull);  // earlier files' operations stay unlinked
  kernel_pid.insert(kernel_pid.end(), kernel_pid_.begin(), kernel_pid_.end());
  std::vector<int64_t> memop_pid(memop_base_, kNull);
  memop_pid.insert(memop_pid.end(), memop_pid_.begin(), memop_pid_.end());
  const analysis::OpIndex ops(kernel_pid, f.kernels.correlation, memop_pid, f.memops.correlation);
  const analysis::CallRanges ranges(f.nvtx, analysis::OpenRangeEnd(f.nvtx));
  launched_.assign(kernel_pid.size() + memop_pid.size(), false);
  std::vector<int32_t> scratch;
  analysis::LaunchClaims claims(ops);
  const ApiLinks& a = api_links_;
  for (size_t i = 0; i < a.start.size(); ++i) {
    std::optional<uint32_t> thread;
    analysis::LinkCall(ops, ranges, claims, a.global_tid[i], a.correlation[i], a.start[i], a.end[i], scratch,
                       [&](uint32_t op, int32_t r) {
                         if (!thread) thread = analysis::ThreadIndex(f.threads, a.global_tid[i]);
                         const uint32_t id = op < ops.kernels() ? op
                                                                : analysis::NsysFacts::kMemop |
                                                                      static_cast<uint32_t>(op - ops.kernels());
                         f.launches.push_back({id, r, *thread});
                         launched_[op] = true;
                       });
  }
  api_links_ = {};
  shared_correlations_ = claims.duplicates();
}

// GPU operations whose launching call the trace lacks (launched before the profiler's window
// opened, or a call it did not record) are kept and counted; so are operations that end after
// the window closed.
Status TraceToStore::CountUnlaunched() {
  const auto& f = target_.facts;
  const size_t kernels = f.kernels.start.size();
  for (size_t op = 0; op < launched_.size(); ++op) {
    const bool kernel = op < kernels;
    if (kernel ? op < kernel_base_ : op - kernels < memop_base_) continue;
    const int64_t end = kernel ? f.kernels.end[op] : f.memops.end[op - kernels];
    if (window_end_ && end > *window_end_) ++past_window_;
    if (launched_[op]) continue;
    ++unlaunched_;
    if (problems_++ >= kMaxProblemDetails) continue;
    const int64_t correlation = kernel ? f.kernels.correlation[op] : f.memops.correlation[op - kernels];
    const int64_t start = kernel ? f.kernels.start[op] : f.memops.start[op - kernels];
    KSCOPE_RETURN_IF_ERROR(target_.store.AddProblem(
        target_.run_id, target_.source_id,
        fmt::format("{} starting at {} ns", kernel ? "kernel" : "copy or set", start),
        correlation == kNull ? "GPU operation without a correlation id, so without its launching CUDA call (kept)"
                             : "GPU operation without its launching CUDA call in the trace (kept)",
        correlation == kNull ? "args.correlation missing or not a number"
                             : fmt::format("correlation {}", correlation)));
  }
  if (past_window_ > 0) {
    TraceEvent e;
    e.name = "Record Window End";
    KSCOPE_RETURN_IF_ERROR(Problem(
        e, fmt::format("{} GPU operations end after the profiler's window closed (kept)", past_window_), false));
  }
  launched_ = {};
  return Status::Ok();
}

Status TraceToStore::WriteThreadNames() {
  auto insert = target_.store.db().Prepare(
      "INSERT OR REPLACE INTO thread_name (run_id, global_tid, name_id) VALUES (?1, ?2, ?3)");
  if (!insert.ok()) return insert.error();
  for (const auto& [key, name] : thread_names_) {
    if (!host_pid_ || (key >> 24) != *host_pid_) continue;  // the GPUs' rows (streams) are not threads
    auto id = Intern(name);
    if (!id.ok()) return id.error();
    const int64_t tid = GlobalTid(HostPid(), key & 0xFFFFFF);
    KSCOPE_RETURN_IF_ERROR(insert->Bind(1, target_.run_id).Bind(2, tid).Bind(3, *id).Run());
  }
  return Status::Ok();
}

Status TraceToStore::WriteCollectiveMessages() {
  auto insert = target_.store.db().Prepare(
      "INSERT INTO collective_message (run_id, kernel_row, in_bytes, out_bytes) VALUES (?1, ?2, ?3, ?4)");
  if (!insert.ok()) return insert.error();
  for (const CollectiveMessage& c : collectives_) {
    KSCOPE_RETURN_IF_ERROR(
        insert->Bind(1, target_.run_id).Bind(2, c.kernel_row).Bind(3, c.in_bytes).Bind(4, c.out_bytes).Run());
  }
  collectives_ = {};
  return Status::Ok();
}

// The GPU most kernels ran on names the run's GPU; the CUDA runtime its version. (The
// trace's cuda_driver_version is the driver's CUDA API version, not the driver's own, which
// the run's `driver` means: left out.)
store::Manifest TraceToStore::Learned() const {
  store::Manifest m;
  std::optional<int64_t> device;
  int64_t most = 0;
  for (const auto& [d, n] : kernels_per_device_) {
    if (n > most) most = n, device = d;
  }
  auto it = device ? devices_.find(*device) : devices_.begin();
  if (it != devices_.end() && !it->second.name.empty()) m.gpu = it->second.name;
  if (runtime_) m.cuda_version = CudaVersionText(*runtime_);
  return m;
}

}  // namespace kscope::import::kineto
