#include "import/kineto/trace_to_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>

#include "analysis/names/kernel_name_normalize.h"
#include "import/kineto/trace_input.h"

namespace kscope::import::kineto {

namespace {
using store::kNull;

int64_t ArgOr(const TraceEvent& e, Arg a) { return ParseInteger(e.arg(a)).value_or(kNull); }
}  // namespace

TraceToStore::TraceToStore(const std::string& path, const ImportTarget& target)
    : path_(path),
      target_(target),
      kernels_(target.store.db(), target.run_id, store::kKernelStream),
      memops_(target.store.db(), target.run_id, store::kMemopStream),
      api_(target.store.db(), target.run_id, store::kApiStream),
      kernel_base_(target.facts.kernels.start.size()),
      memop_base_(target.facts.memops.start.size()) {}

Status TraceToStore::OnTopLevel(std::string_view key, std::string_view value) {
  // "displayTimeUnit" is the unit a viewer shows times in, never the unit of "ts" and "dur",
  // which every Kineto writes in microseconds ("ms" or "ns" alike; docs/kineto.md, "Times").
  if (key == "schemaVersion") {
    schema_version_ = value;
  } else if (key == "cuda_driver_version") {
    driver_ = ParseInteger(value);
  } else if (key == "cuda_runtime_version") {
    runtime_ = ParseInteger(value);
  }
  return Status::Ok();
}

Status TraceToStore::OnDevice(const DeviceProperty& device) {
  if (device.id) devices_.try_emplace(*device.id, device);
  return Status::Ok();
}

namespace {
// Whether `text` occurs in the rest of `input` (the plain or inflated text, a buffer at a time,
// Boyer-Moore-Horspool): no JSON is parsed.
bool Mentions(TraceInput& input, std::string_view text) {
  const std::boyer_moore_horspool_searcher find(text.begin(), text.end());
  const auto in = [&](std::string_view s) { return std::search(s.begin(), s.end(), find) != s.end(); };
  std::string edge;  // the end of the buffer before and the start of this one
  for (std::string_view buf = input.NextText(); !buf.empty(); buf = input.NextText()) {
    edge.append(buf.substr(0, text.size() - 1));
    if (in(edge) || in(buf)) return true;
    edge.assign(buf.substr(buf.size() - std::min(buf.size(), text.size() - 1)));
  }
  return false;
}

// The header of a trace read through without its events: its distributedInfo.
class HeaderOnly final : public TraceSink {
 public:
  std::optional<DistributedInfo> distributed;
  Status OnTopLevel(std::string_view /*key*/, std::string_view /*value*/) override { return Status::Ok(); }
  Status OnDevice(const DeviceProperty& /*device*/) override { return Status::Ok(); }
  Status OnDistributed(const DistributedInfo& info) override {
    if (!distributed) distributed = info;
    return Status::Ok();
  }
  Status OnEvent(const TraceEvent& /*e*/) override { return Status::Ok(); }
};
}  // namespace

Status TraceToStore::OnEventsBegin() {
  if (!events_begun_ && !distributed_ && target_.timeline_of_several) {
    // The rank orders the run's processes (GlobalPid): a trace whose distributedInfo follows
    // its events is read through once for it first, when its text names one at all. What the
    // read finds wrong, the import itself finds again and names.
    TraceInput scan(path_);
    if (Mentions(scan, "\"distributedInfo\"")) {
      TraceInput again(path_);
      HeaderOnly header;
      if (ReadTrace(again, header, ReadMode::kHeader).ok() && header.distributed) {
        KSCOPE_RETURN_IF_ERROR(OnDistributed(*header.distributed));
      }
    }
  }
  events_begun_ = true;
  return Status::Ok();
}

Status TraceToStore::OnDistributed(const DistributedInfo& info) {
  if (distributed_) return Status::Ok();  // read ahead of the events; or a second one: the first counts
  distributed_ = true;
  // The rank goes into the process ids only where it orders the run's traces; it is known
  // before the events then (OnEventsBegin). A trace alone has it as the run's rank only, so
  // that it imports alike wherever its distributedInfo is.
  if (!events_begun_ && target_.timeline_of_several) rank_ = info.rank;
  world_size_ = info.world_size;
  if (info.rank && !target_.facts.launched_rank)
    target_.facts.launched_rank = analysis::EnvRank{*info.rank, "distributedInfo"};
  return Status::Ok();
}

Result<int64_t> TraceToStore::Intern(std::string_view s) {
  if (auto it = strings_.find(s); it != strings_.end()) return it->second;
  auto id = target_.store.InternString(s);
  if (!id.ok()) return id.error();
  if (*id > INT32_MAX) return Error{path_, "more than 2^31 strings in the store", "import into a new database"};
  strings_.emplace(s, *id);
  return *id;
}

Status TraceToStore::Problem(const TraceEvent& e, std::string_view what, bool skipped) {
  if (skipped) ++rows_skipped_;
  if (skipped && KindOf(e) == EventKind::kKernel && unread_kernels_++ == 0) {
    first_unread_kernel_ = fmt::format("{} (the first, ending at byte {})", what, e.offset);
  }
  if (problems_++ >= kMaxProblemDetails) return Status::Ok();
  const std::string raw = fmt::format("{} {} \"{}\" ts={} dur={}", e.ph, e.cat, e.name.substr(0, 200), e.ts, e.dur);
  return target_.store.AddProblem(target_.run_id, target_.source_id, fmt::format("event ending at byte {}", e.offset),
                                  what, raw);
}

std::optional<TraceToStore::Span> TraceToStore::TimesOf(const TraceEvent& e) {
  auto ts = ParseTime(e.ts, TimeUnit::kMicroseconds);
  auto dur = ParseTime(e.dur, TimeUnit::kMicroseconds);
  if (!ts || !dur || *dur < 0 || *ts > INT64_MAX - *dur) return std::nullopt;
  return Span{*ts, *ts + *dur};
}

std::optional<int64_t> TraceToStore::PidOf(const TraceEvent& e) const { return ParseInteger(e.pid); }

Status TraceToStore::OnEvent(const TraceEvent& e) {
  const EventKind kind = KindOf(e);
  if (kind == EventKind::kIgnored) {
    if (e.ph == "i" && e.name == "Record Window End") window_end_ = ParseTime(e.ts, TimeUnit::kMicroseconds);
    return Status::Ok();
  }
  if (kind == EventKind::kMetadata) return OnMetadata(e);
  if (kind == EventKind::kUnknown) {
    ++unknown_categories_[e.cat.substr(0, 100)];
    return Status::Ok();
  }
  const auto t = TimesOf(e);
  if (!t) return Problem(e, "ts or dur is missing, not a number, or dur is negative");
  const bool gpu = kind == EventKind::kKernel || kind == EventKind::kMemcpy || kind == EventKind::kMemset;
  if (gpu) return OnGpuEvent(e, *t, kind);
  const auto pid = PidOf(e);
  const auto tid = ParseInteger(e.tid);
  if (!pid || !tid) return Problem(e, "pid or tid is not a number");
  if (!host_pid_) {
    host_pid_ = *pid;
    std::vector<TraceEvent> pending;
    pending.swap(pending_gpu_);
    for (const TraceEvent& g : pending) KSCOPE_RETURN_IF_ERROR(OnEvent(g));
  }
  if (kind == EventKind::kCudaCall) return OnCudaCall(e, *t);
  if (kind == EventKind::kCpuOp) {
    OpRangeText(e, op_text_);
    return OnRange(e, *t, op_text_);
  }
  return OnRange(e, *t, AnnotationText(e.name));
}

Status TraceToStore::OnGpuEvent(const TraceEvent& e, Span t, EventKind kind) {
  // A GPU operation belongs to the process that launched it, which its row does not name
  // (its pid is the device): until a CPU event has named it, the operation waits.
  if (!host_pid_) {
    pending_gpu_.push_back(e);
    return Status::Ok();
  }
  if (kind == EventKind::kKernel) return OnKernel(e, t);
  return OnMemop(e, t, kind == EventKind::kMemset);
}

Status TraceToStore::OnKernel(const TraceEvent& e, Span t) {
  namespace k = store::kernel;
  if (e.name.empty()) return Problem(e, "kernel without a name");
  std::array<int64_t, k::kCount> row{};
  row.fill(kNull);
  const bool mangled = e.name.starts_with("_Z");
  auto name = Intern(mangled ? analysis::DemangleName(e.name) : e.name);
  if (!name.ok()) return name.error();
  if (mangled) {
    auto m = Intern(e.name);
    if (!m.ok()) return m.error();
    row[k::kMangledName] = *m;
  }
  row[k::kStart] = t.start;
  row[k::kEnd] = t.end;
  row[k::kDevice] = ArgOr(e, Arg::kDevice);
  row[k::kContext] = ArgOr(e, Arg::kContext);
  row[k::kStream] = ArgOr(e, Arg::kStream);
  row[k::kCorrelation] = ArgOr(e, Arg::kCorrelation);
  row[k::kGlobalPid] = HostPid();
  row[k::kName] = *name;
  if (auto g = Dim3(e.arg(Arg::kGrid))) std::copy(g->begin(), g->end(), row.begin() + k::kGridX);
  if (auto b = Dim3(e.arg(Arg::kBlock))) std::copy(b->begin(), b->end(), row.begin() + k::kBlockX);
  row[k::kRegisters] = ArgOr(e, Arg::kRegisters);
  KSCOPE_RETURN_IF_ERROR(kernels_.Append(row));
  auto& f = target_.facts.kernels;
  KSCOPE_RETURN_IF_ERROR(OnCollectiveMessage(e, static_cast<int64_t>(f.start.size())));
  f.start.push_back(t.start);
  f.end.push_back(t.end);
  f.correlation.push_back(row[k::kCorrelation]);
  f.name.push_back(static_cast<int32_t>(*name));
  kernel_pid_.push_back(row[k::kGlobalPid]);
  ++kernels_per_device_[row[k::kDevice]];
  return Status::Ok();
}

// An NCCL kernel's message: its element counts times its dtype's size (kernels without them
// are not collectives, or come from a PyTorch that does not record them).
Status TraceToStore::OnCollectiveMessage(const TraceEvent& e, int64_t kernel_row) {
  const auto in = ParseInteger(e.arg(Arg::kInNelems));
  const auto out = ParseInteger(e.arg(Arg::kOutNelems));
  if (!in && !out) return Status::Ok();
  const auto size = DtypeBytes(e.arg(Arg::kDtype));
  if (!size || in.value_or(0) < 0 || out.value_or(0) < 0 ||
      std::max(in.value_or(0), out.value_or(0)) > INT64_MAX / 16) {
    return Problem(e,
                   fmt::format("collective message of dtype \"{}\" or size kscope does not read (its bytes left out)",
                               e.arg(Arg::kDtype).substr(0, 100)),
                   false);
  }
  collectives_.push_back({kernel_row, in.value_or(0) * *size, out.value_or(0) * *size});
  return Status::Ok();
}

Status TraceToStore::OnMemop(const TraceEvent& e, Span t, bool memset) {
  namespace m = store::memop;
  const auto bytes = ParseInteger(e.arg(Arg::kBytes));
  if (!bytes) return Problem(e, "copy or set without a byte count");
  std::optional<CopyKind> copy;
  if (!memset && !(copy = CopyKindOf(e.name))) return Problem(e, "a memcpy kind kscope does not know");
  auto op = Intern(memset ? std::string("[CUDA memset]") : fmt::format("[CUDA memcpy {}]", copy->label));
  if (!op.ok()) return op.error();
  std::array<int64_t, m::kCount> row{};
  row.fill(kNull);
  row[m::kStart] = t.start;
  row[m::kEnd] = t.end;
  row[m::kDevice] = ArgOr(e, Arg::kDevice);
  row[m::kContext] = ArgOr(e, Arg::kContext);
  row[m::kStream] = ArgOr(e, Arg::kStream);
  row[m::kCorrelation] = ArgOr(e, Arg::kCorrelation);
  row[m::kGlobalPid] = HostPid();
  row[m::kOperation] = *op;
  row[m::kIsMemset] = memset ? 1 : 0;
  row[m::kBytes] = *bytes;
  if (copy) row[m::kCopyKind] = copy->id;
  KSCOPE_RETURN_IF_ERROR(memops_.Append(row));
  auto& f = target_.facts.memops;
  f.start.push_back(t.start);
  f.end.push_back(t.end);
  f.correlation.push_back(row[m::kCorrelation]);
  f.global_pid.push_back(row[m::kGlobalPid]);
  f.operation.push_back(*op);
  f.bytes.push_back(*bytes);
  memop_pid_.push_back(row[m::kGlobalPid]);
  return Status::Ok();
}

Status TraceToStore::OnCudaCall(const TraceEvent& e, Span t) {
  namespace a = store::api;
  auto name = Intern(e.name);
  if (!name.ok()) return name.error();
  const int64_t tid = GlobalTid(GlobalPid(*PidOf(e), rank_), *ParseInteger(e.tid));
  const std::array<int64_t, a::kCount> row = {t.start, t.end, tid, ArgOr(e, Arg::kCorrelation), *name, kNull};
  KSCOPE_RETURN_IF_ERROR(api_.Append(row));
  target_.facts.api_durations[*name].Add(t.end - t.start);
  api_links_.start.push_back(t.start);
  api_links_.end.push_back(t.end);
  api_links_.global_tid.push_back(tid);
  api_links_.correlation.push_back(row[a::kCorrelation]);
  return Status::Ok();
}

Status TraceToStore::OnRange(const TraceEvent& e, Span t, std::string_view text) {
  namespace n = store::nvtx;
  auto id = Intern(text);
  if (!id.ok()) return id.error();
  const int64_t tid = GlobalTid(GlobalPid(*PidOf(e), rank_), *ParseInteger(e.tid));
  std::array<int64_t, n::kCount> row{};
  row.fill(kNull);
  row[n::kStart] = t.start;
  row[n::kEnd] = t.end;
  row[n::kEventType] = n::kPushPop;
  row[n::kText] = *id;
  row[n::kGlobalTid] = tid;  // kEndGlobalTid stays NULL: a range closed on its own thread, as nsys writes push/pop
  ranges_.push_back(row);
  return Status::Ok();
}

Status TraceToStore::OnMetadata(const TraceEvent& e) {
  if (e.name != "thread_name" || e.arg(Arg::kName).empty()) return Status::Ok();
  const auto pid = PidOf(e);
  const auto tid = ParseInteger(e.tid);
  if (!pid || !tid) return Status::Ok();
  // Keyed by the raw process id for now: only the launching process's threads are kept.
  thread_names_[(*pid << 24) | (*tid & 0xFFFFFF)] = e.arg(Arg::kName).substr(0, 1000);
  return Status::Ok();
}

}  // namespace kscope::import::kineto
