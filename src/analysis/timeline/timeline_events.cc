#include "analysis/timeline/timeline_events.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "analysis/names/api_names.h"
#include "analysis/timeline/rank_selection.h"
#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {

// The row order that sorts `start`, or empty when it is sorted already (the usual case).
std::vector<uint32_t> StartOrder(const std::vector<int64_t>& start) {
  if (std::is_sorted(start.begin(), start.end())) return {};
  std::vector<uint32_t> order(start.size());
  std::iota(order.begin(), order.end(), 0U);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return start[x] < start[y]; });
  return order;
}

template <typename T>
void Permute(std::vector<T>& column, const std::vector<uint32_t>& order) {
  if (order.empty()) return;
  std::vector<T> sorted;
  sorted.reserve(column.size());
  for (uint32_t i : order) sorted.push_back(column[i]);
  column = std::move(sorted);
}

CopyDirection Direction(int64_t is_memset, int64_t copy_kind) {
  if (is_memset == 1) return CopyDirection::kMemset;
  switch (copy_kind) {
    case 1: return CopyDirection::kHtoD;
    case 2: return CopyDirection::kDtoH;
    case 8: return CopyDirection::kDtoD;
    case 10: return CopyDirection::kPtoP;
    default: return CopyDirection::kOther;
  }
}

HostMemory HostSide(int64_t is_memset, int64_t src_kind, int64_t dst_kind) {
  constexpr int64_t kPageable = 0, kPinned = 1;
  if (is_memset == 1) return HostMemory::kNone;
  if (src_kind == kPageable || dst_kind == kPageable) return HostMemory::kPageable;
  if (src_kind == kPinned || dst_kind == kPinned) return HostMemory::kPinned;
  return HostMemory::kNone;
}

Status LoadKernels(store::Store& store, int64_t run_id, const NsysEvents* nsys, TimelineEvents& e) {
  namespace k = store::kernel;
  if (nsys != nullptr) {
    e.kernels.start = nsys->kernels.start;
    e.kernels.end = nsys->kernels.end;
  } else {
    auto cols = store::ReadColumns(store.db(), run_id, store::kKernelStream, {k::kStart, k::kEnd});
    if (!cols.ok()) return cols.error();
    e.kernels.start = std::move((*cols)[0]);
    e.kernels.end = std::move((*cols)[1]);
  }
  const auto order = StartOrder(e.kernels.start);
  Permute(e.kernels.start, order);
  Permute(e.kernels.end, order);
  return Status::Ok();
}

Status LoadMemops(store::Store& store, int64_t run_id, const std::vector<int64_t>* rows, TimelineEvents& e) {
  namespace m = store::memop;
  auto cols = store::ReadColumns(store.db(), run_id, store::kMemopStream,
                                 {m::kStart, m::kEnd, m::kBytes, m::kIsMemset, m::kCopyKind, m::kSrcKind, m::kDstKind});
  if (!cols.ok()) return cols.error();
  auto& c = *cols;
  if (rows != nullptr) {
    for (auto& column : c) column = AtRows(column, *rows);
  }
  auto& o = e.memops;
  o.start = std::move(c[0]);
  o.end = std::move(c[1]);
  o.bytes = std::move(c[2]);
  for (size_t i = 0; i < o.start.size(); ++i) {
    o.direction.push_back(Direction(c[3][i], c[4][i]));
    o.host.push_back(HostSide(c[3][i], c[5][i], c[6][i]));
  }
  const auto order = StartOrder(o.start);
  Permute(o.start, order);
  Permute(o.end, order);
  Permute(o.bytes, order);
  Permute(o.direction, order);
  Permute(o.host, order);
  return Status::Ok();
}

Status LoadApi(store::Store& store, int64_t run_id, const NsysEvents* nsys, TimelineEvents& e) {
  namespace a = store::api;
  store::Columns cols;
  if (nsys != nullptr) {
    cols = {nsys->api.start, nsys->api.end, nsys->api.name};
  } else {
    auto read = store::ReadColumns(store.db(), run_id, store::kApiStream, {a::kStart, a::kEnd, a::kName});
    if (!read.ok()) return read.error();
    cols = std::move(read).value();
  }
  auto& names = cols[2];
  std::unordered_map<int64_t, uint32_t> function_of;  // string id -> index into functions
  for (int64_t id : names) function_of.emplace(id, 0);
  std::vector<int64_t> ids;
  ids.reserve(function_of.size());
  for (const auto& [id, index] : function_of) ids.push_back(id);
  std::sort(ids.begin(), ids.end());  // a stable order of functions
  auto strings = store.Strings(ids);
  if (!strings.ok()) return strings.error();
  for (int64_t id : ids) {
    const std::string& raw = (*strings)[id];
    function_of[id] = static_cast<uint32_t>(e.functions.size());
    e.functions.push_back({ApiDisplayName(raw), SynchronizesHost(raw)});
  }
  e.api.start = std::move(cols[0]);
  e.api.end = std::move(cols[1]);
  e.api.function.reserve(names.size());
  for (int64_t id : names) e.api.function.push_back(function_of[id]);
  const auto order = StartOrder(e.api.start);
  Permute(e.api.start, order);
  Permute(e.api.end, order);
  Permute(e.api.function, order);
  return Status::Ok();
}

// The unions, built in start order without sorting: kernels and memory operations are each
// sorted already, and so are the API calls.
void Derive(TimelineEvents& e) {
  const auto& k = e.kernels;
  const auto& m = e.memops;
  const auto& a = e.api;
  e.gpu_busy.reserve(k.start.size() + m.start.size());
  e.api_busy.reserve(a.start.size());
  for (size_t i = 0, j = 0; i < k.start.size() || j < m.start.size();) {
    if (j == m.start.size() || (i < k.start.size() && k.start[i] <= m.start[j])) {
      AppendInStartOrder(e.gpu_busy, {k.start[i], k.end[i]});
      ++i;
    } else {
      AppendInStartOrder(e.gpu_busy, {m.start[j], m.end[j]});
      ++j;
    }
  }
  for (size_t i = 0; i < a.start.size(); ++i) {
    const TimeWindow call{a.start[i], a.end[i]};
    AppendInStartOrder(e.api_busy, call);
    if (e.functions[a.function[i]].synchronizes) AppendInStartOrder(e.sync_busy, call);
    e.longest_api_ns = std::max(e.longest_api_ns, call.end - call.start);
  }
  // The span: first start to last end of anything (the starts are sorted).
  bool any = false;
  for (const auto* cols : {&k.start, &m.start, &a.start}) {
    if (cols->empty()) continue;
    e.span.start = any ? std::min(e.span.start, cols->front()) : cols->front();
    e.span.end = any ? e.span.end : cols->front();
    any = true;
  }
  for (const auto* cols : {&k.end, &m.end, &a.end}) {
    for (int64_t end : *cols) e.span.end = std::max(e.span.end, end);
  }
}

}  // namespace

Result<TimelineEvents> LoadTimelineEvents(store::Store& store, int64_t run_id, const NsysEvents* nsys,
                                          const std::vector<int64_t>* memop_rows) {
  TimelineEvents e;
  KSCOPE_RETURN_IF_ERROR(LoadKernels(store, run_id, nsys, e));
  KSCOPE_RETURN_IF_ERROR(LoadMemops(store, run_id, memop_rows, e));
  KSCOPE_RETURN_IF_ERROR(LoadApi(store, run_id, nsys, e));
  Derive(e);
  return e;
}

}  // namespace kscope::analysis
