#include "analysis/timeline/nsys_events.h"

#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {
Status Fill(store::Store& store, int64_t run_id, const store::StreamSpec& spec, const std::vector<int>& cols,
            const std::vector<std::vector<int64_t>*>& into) {
  auto read = store::ReadColumns(store.db(), run_id, spec, cols);
  if (!read.ok()) return read.error();
  for (size_t i = 0; i < into.size(); ++i) *into[i] = std::move((*read)[i]);
  return Status::Ok();
}
}  // namespace

Result<NsysEvents> LoadNsysEvents(store::Store& store, int64_t run_id) {
  NsysEvents e;
  namespace k = store::kernel;
  namespace m = store::memop;
  namespace a = store::api;
  namespace n = store::nvtx;
  auto& kc = e.kernels;
  KSCOPE_RETURN_IF_ERROR(Fill(store, run_id, store::kKernelStream,
                              {k::kStart, k::kEnd, k::kCorrelation, k::kGlobalPid, k::kName},
                              {&kc.start, &kc.end, &kc.correlation, &kc.global_pid, &kc.name}));
  auto& mc = e.memops;
  KSCOPE_RETURN_IF_ERROR(Fill(store, run_id, store::kMemopStream,
                              {m::kStart, m::kEnd, m::kCorrelation, m::kGlobalPid, m::kOperation, m::kBytes},
                              {&mc.start, &mc.end, &mc.correlation, &mc.global_pid, &mc.operation, &mc.bytes}));
  auto& ac = e.api;
  KSCOPE_RETURN_IF_ERROR(Fill(store, run_id, store::kApiStream,
                              {a::kStart, a::kEnd, a::kGlobalTid, a::kCorrelation, a::kName},
                              {&ac.start, &ac.end, &ac.global_tid, &ac.correlation, &ac.name}));
  auto& nc = e.nvtx;
  KSCOPE_RETURN_IF_ERROR(Fill(
      store, run_id, store::kNvtxStream,
      {n::kStart, n::kEnd, n::kEventType, n::kDomain, n::kText, n::kGlobalTid, n::kEndGlobalTid, n::kParent, n::kDepth},
      {&nc.start, &nc.end, &nc.event_type, &nc.domain, &nc.text, &nc.global_tid, &nc.end_global_tid, &nc.parent,
       &nc.depth}));
  return e;
}

}  // namespace kscope::analysis
