#include "analysis/graph/graph_events.h"

#include <algorithm>
#include <unordered_set>

#include "analysis/names/api_names.h"
#include "store/column_codec.h"
#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis::graph {

size_t GraphEvents::function_of(int64_t name_id) const {
  const auto it = std::lower_bound(function_ids.begin(), function_ids.end(), name_id);
  return static_cast<size_t>(it - function_ids.begin());
}

void NameFunctions(GraphEvents& e, const std::unordered_map<int64_t, std::string>& strings) {
  e.function_ids = e.calls.name;
  std::sort(e.function_ids.begin(), e.function_ids.end());
  e.function_ids.erase(std::unique(e.function_ids.begin(), e.function_ids.end()), e.function_ids.end());
  e.function_role.clear();
  e.function_name.clear();
  for (const int64_t id : e.function_ids) {
    const auto it = strings.find(id);
    const std::string raw = it == strings.end() ? std::string() : it->second;
    e.function_name.push_back(ApiDisplayName(raw));
    e.function_role.push_back(SynchronizesHost(raw) ? CallRole::kSynchronize : CallRole::kOther);
  }
  e.op_name_ids = e.ops.name;
  std::sort(e.op_name_ids.begin(), e.op_name_ids.end());
  e.op_name_ids.erase(std::unique(e.op_name_ids.begin(), e.op_name_ids.end()), e.op_name_ids.end());
  e.op_names.clear();
  for (const int64_t id : e.op_name_ids) {
    const auto it = strings.find(id);
    e.op_names.push_back(it == strings.end() ? std::string() : it->second);
  }
}

Result<GraphEvents> LoadGraphEvents(store::Store& store, int64_t run_id) {
  namespace k = store::kernel;
  namespace m = store::memop;
  namespace a = store::api;
  GraphEvents e;
  auto kernels =
      store::ReadColumns(store.db(), run_id, store::kKernelStream,
                         {k::kStart, k::kEnd, k::kDevice, k::kStream, k::kCorrelation, k::kGlobalPid, k::kName});
  if (!kernels.ok()) return kernels.error();
  auto memops =
      store::ReadColumns(store.db(), run_id, store::kMemopStream,
                         {m::kStart, m::kEnd, m::kDevice, m::kStream, m::kCorrelation, m::kGlobalPid, m::kOperation});
  if (!memops.ok()) return memops.error();
  auto& o = e.ops;
  const size_t n_kernels = (*kernels)[0].size();
  std::vector<int64_t>* columns[] = {&o.start, &o.end, &o.device, &o.stream, &o.correlation, &o.global_pid, &o.name};
  for (size_t c = 0; c < 7; ++c) {
    *columns[c] = std::move((*kernels)[c]);
    columns[c]->insert(columns[c]->end(), (*memops)[c].begin(), (*memops)[c].end());
  }
  o.is_kernel.assign(o.start.size(), 0);
  std::fill_n(o.is_kernel.begin(), n_kernels, 1);
  o.row.resize(o.start.size());
  for (size_t i = 0; i < o.row.size(); ++i) o.row[i] = static_cast<int64_t>(i < n_kernels ? i : i - n_kernels);
  auto calls = store::ReadColumns(store.db(), run_id, store::kApiStream,
                                  {a::kStart, a::kEnd, a::kGlobalTid, a::kCorrelation, a::kName});
  if (!calls.ok()) return calls.error();
  e.calls.start = std::move((*calls)[0]);
  e.calls.end = std::move((*calls)[1]);
  e.calls.global_tid = std::move((*calls)[2]);
  e.calls.correlation = std::move((*calls)[3]);
  e.calls.name = std::move((*calls)[4]);
  namespace n = store::nvtx;
  auto nvtx =
      store::ReadColumns(store.db(), run_id, store::kNvtxStream, {n::kStart, n::kEnd, n::kGlobalTid, n::kEndGlobalTid});
  if (!nvtx.ok()) return nvtx.error();
  for (size_t r = 0; r < (*nvtx)[0].size(); ++r) {
    const int64_t tid = (*nvtx)[2][r];
    if (tid == store::kNull) continue;
    e.marks.time.push_back((*nvtx)[0][r]);
    e.marks.global_tid.push_back(tid);
    if ((*nvtx)[1][r] == store::kNull) continue;
    e.marks.time.push_back((*nvtx)[1][r]);
    e.marks.global_tid.push_back((*nvtx)[3][r] == store::kNull ? tid : (*nvtx)[3][r]);
  }
  std::unordered_set<int64_t> ids(e.calls.name.begin(), e.calls.name.end());
  ids.insert(o.name.begin(), o.name.end());
  auto strings = store.Strings(std::vector<int64_t>(ids.begin(), ids.end()));
  if (!strings.ok()) return strings.error();
  NameFunctions(e, *strings);
  return e;
}

}  // namespace kscope::analysis::graph
