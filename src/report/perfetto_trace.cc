// A run as a Chrome JSON trace (report/perfetto_trace.h): the host threads with their CUDA
// calls and NVTX ranges, the GPU streams with their operations, the launch arrows; the
// analysis tracks come from perfetto_analysis.cc and perfetto_critical_path.cc.
#include "report/perfetto_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "analysis/graph/graph_events.h"
#include "report/perfetto_parts.h"
#include "store/column_codec.h"
#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::report {

namespace {

namespace g = analysis::graph;
using perfetto::Flow;
using perfetto::TraceRun;

// A call or an NVTX range on its thread.
struct HostItem {
  int64_t start = 0, end = 0;  // end: store::kNull for a range never closed
  uint32_t row = 0;            // the call's node, or the NVTX row
  bool nvtx = false;
};

// Each thread's calls and NVTX ranges, nested: by start, the enclosing one first.
Status WriteThreads(store::Store& store, const TraceRun& run, ChromeTraceWriter& out, PerfettoSummary& summary) {
  static const JsonString kApi("cuda_api"), kNvtx("nvtx");
  const g::GraphEvents& e = run.graph.events;
  const auto& n = run.nsys.nvtx;
  std::unordered_map<int64_t, std::vector<HostItem>> by_thread;
  for (uint32_t i = 0; i < run.graph.calls; ++i) {
    by_thread[e.calls.global_tid[i]].push_back({e.calls.start[i], e.calls.end[i], i, false});
  }
  std::vector<int64_t> ids;
  for (size_t r = 0; r < n.start.size(); ++r) {
    if (n.event_type[r] == store::nvtx::kDomainCreate) continue;
    by_thread[n.global_tid[r]].push_back({n.start[r], n.end[r], static_cast<uint32_t>(r), true});
    ids.push_back(n.text[r]);
    ids.push_back(n.domain[r]);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  ids.erase(std::remove(ids.begin(), ids.end(), store::kNull), ids.end());
  auto strings = store.Strings(ids);
  if (!strings.ok()) return strings.error();
  std::unordered_map<int64_t, JsonString> texts;  // NVTX text and domain ids, escaped once
  for (const auto& [id, text] : *strings) texts.emplace(id, JsonString(text));
  const JsonString none("");
  auto text = [&](int64_t id) -> const JsonString& {
    const auto it = texts.find(id);
    return it == texts.end() ? none : it->second;
  };
  std::vector<JsonString> functions;  // per function: its display name, escaped once
  for (const std::string& f : e.function_name) functions.emplace_back(f);
  auto end_of = [](const HostItem& h) { return h.end == store::kNull ? h.start : h.end; };
  for (auto& [global_tid, items] : by_thread) {
    std::sort(items.begin(), items.end(), [&](const HostItem& a, const HostItem& b) {
      if (a.start != b.start) return a.start < b.start;
      if (end_of(a) != end_of(b)) return end_of(a) > end_of(b);
      return a.nvtx && !b.nvtx;
    });
    const TraceTrack track = run.layout.thread.at(global_tid);
    for (const HostItem& h : items) {
      if (!h.nvtx) {
        TraceArgs args;
        if (const int64_t corr = e.calls.correlation[h.row]; corr != 0) args.Add("correlation", corr);
        out.Slice(track, functions[e.function_of(e.calls.name[h.row])], kApi, h.start,
                  std::max<int64_t>(h.end - h.start, 0), args);
        ++summary.calls;
        continue;
      }
      TraceArgs args;
      if (n.domain[h.row] != store::kNull) args.Add("domain", text(n.domain[h.row]));
      if (h.end == store::kNull) {
        args.Add("never_closed", true);
        out.Instant(track, strings->count(n.text[h.row]) != 0 ? strings->at(n.text[h.row]) : "", kNvtx, h.start, args);
      } else {
        out.Slice(track, text(n.text[h.row]), kNvtx, h.start, std::max<int64_t>(h.end - h.start, 0), args);
      }
      ++summary.nvtx_ranges;
    }
  }
  return Status::Ok();
}

// Each stream's kernels, copies and sets; the kernels with their grid and block, the copies
// with their bytes.
Status WriteStreams(store::Store& store, const TraceRun& run, ChromeTraceWriter& out, PerfettoSummary& summary) {
  namespace k = store::kernel;
  namespace m = store::memop;
  auto shape = store::ReadColumns(store.db(), run.run_id, store::kKernelStream,
                                  {k::kGridX, k::kGridY, k::kGridZ, k::kBlockX, k::kBlockY, k::kBlockZ});
  if (!shape.ok()) return shape.error();
  auto memop = store::ReadColumns(store.db(), run.run_id, store::kMemopStream, {m::kBytes, m::kIsMemset});
  if (!memop.ok()) return memop.error();
  static const JsonString kKernel("kernel"), kMemcpy("memcpy"), kMemset("memset");
  const g::GraphEvents& e = run.graph.events;
  const auto& o = e.ops;
  std::vector<JsonString> names, full_names;  // per operation name: the slice's, and as recorded
  for (size_t i = 0; i < e.op_names.size(); ++i) {
    names.emplace_back(run.op_names[i]);
    full_names.emplace_back(e.op_names[i]);
  }
  std::map<perfetto::StreamKey, std::vector<uint32_t>> by_stream;
  for (uint32_t op = 0; op < run.graph.ops; ++op)
    by_stream[{o.global_pid[op], o.device[op], o.stream[op]}].push_back(op);
  for (auto& [key, ops] : by_stream) {
    std::sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
      if (o.start[a] != o.start[b]) return o.start[a] < o.start[b];
      return o.end[a] > o.end[b];
    });
    const TraceTrack track = run.layout.stream.at(key);
    for (const uint32_t op : ops) {
      const auto name = std::lower_bound(e.op_name_ids.begin(), e.op_name_ids.end(), o.name[op]);
      const auto index = static_cast<size_t>(name - e.op_name_ids.begin());
      const int64_t dur = std::max<int64_t>(o.end[op] - o.start[op], 0);
      const auto row = static_cast<size_t>(o.row[op]);
      TraceArgs args;
      const JsonString* cat = &kKernel;
      if (o.is_kernel[op] != 0) {
        const auto& c = *shape;
        args.Add("full_name", full_names[index])
            .Add("grid", std::array<int64_t, 3>{c[0][row], c[1][row], c[2][row]})
            .Add("block", std::array<int64_t, 3>{c[3][row], c[4][row], c[5][row]});
        ++summary.kernels;
      } else {
        cat = (*memop)[1][row] != 0 ? &kMemset : &kMemcpy;
        args.Add("bytes", (*memop)[0][row]);
        ++summary.memops;
      }
      args.Add("duration_ns", dur).Add("correlation", o.correlation[op]);
      out.Slice(track, names[index], *cat, o.start[op], dur, args);
    }
  }
  return Status::Ok();
}

// An arrow from each launching call to its operation, the earliest `max` operations'.
void LaunchFlows(const TraceRun& run, size_t max, std::vector<Flow>& flows, PerfettoSummary& summary) {
  const g::DependencyGraph& graph = run.graph;
  std::vector<uint32_t> launched;
  for (uint32_t op = 0; op < graph.ops; ++op) {
    if (graph.launcher[op] != g::kNoLauncher) launched.push_back(op);
  }
  std::stable_sort(launched.begin(), launched.end(),
                   [&](uint32_t a, uint32_t b) { return graph.events.ops.start[a] < graph.events.ops.start[b]; });
  const size_t drawn = std::min(launched.size(), max);
  for (size_t i = 0; i < drawn; ++i) {
    const uint32_t op = launched[i];
    flows.push_back({"launch", run.SliceOf(graph.launcher[op]), run.SliceOf(static_cast<uint32_t>(graph.calls + op))});
  }
  summary.launch_flows = static_cast<int64_t>(drawn);
  summary.launches_left_out = static_cast<int64_t>(launched.size() - drawn);
}

// The arrows, each from the slice that starts first (a flow's start must come before its
// finish in time; the format binds each end to the slice open on its track then).
void WriteFlows(const std::vector<Flow>& flows, ChromeTraceWriter& out) {
  std::map<std::string_view, JsonString> cats;
  for (const Flow& f : flows) cats.try_emplace(f.cat, f.cat);
  int64_t id = 0;
  for (const Flow& f : flows) {
    perfetto::FlowPoint from = f.from, to = f.to;
    if (to.at < from.at) std::swap(from, to);
    if (from.track.tid == to.track.tid && from.at == to.at) continue;  // one slice: nothing to draw
    ++id;
    const JsonString& cat = cats.at(f.cat);
    out.FlowStart(from.track, cat, id, from.at);
    out.FlowFinish(to.track, cat, id, to.at);
  }
}

}  // namespace

Result<PerfettoSummary> WritePerfettoTrace(store::Store& store, int64_t run_id, const std::filesystem::path& path,
                                           const analysis::AnalysisOptions& config, const PerfettoOptions& options) {
  auto info = store.GetRun(run_id);
  if (!info.ok()) return info.error();
  auto events = g::LoadGraphEvents(store, run_id);
  if (!events.ok()) return events.error();
  if (events->ops.start.empty() && events->calls.start.empty()) {
    return Error{fmt::format("run {}", run_id), "has no GPU operations and no CUDA calls to draw",
                 "export the run its nsys export or PyTorch profiler trace was imported into (kscope runs)"};
  }
  auto nsys = analysis::LoadNsysEvents(store, run_id);
  if (!nsys.ok()) return nsys.error();
  const g::DependencyGraph graph = g::BuildGraph(std::move(*events));
  TraceRun run{.run_id = run_id, .graph = graph, .nsys = *nsys, .op_names = perfetto::SliceNames(graph.events)};
  auto out = ChromeTraceWriter::Create(path);
  if (!out.ok()) return out.error();
  PerfettoSummary summary;
  KSCOPE_RETURN_IF_ERROR(perfetto::PlaceTracks(store, run, *out));
  KSCOPE_RETURN_IF_ERROR(perfetto::WriteAnalysisTracks(store, run, config, *out));
  std::vector<Flow> flows;
  auto drawn = perfetto::WriteCriticalPath(store, run, config, options.max_path_flows, *out, flows);
  if (!drawn.ok()) return drawn.error();
  summary.critical_path = *drawn;
  KSCOPE_RETURN_IF_ERROR(WriteThreads(store, run, *out, summary));
  KSCOPE_RETURN_IF_ERROR(WriteStreams(store, run, *out, summary));
  LaunchFlows(run, options.max_launch_flows, flows, summary);
  WriteFlows(flows, *out);

  if (summary.launches_left_out > 0) {
    summary.notes.push_back(fmt::format(
        "launch arrows drawn for the first {} operations in time order; the {} after them have none (the file "
        "stays usable in the viewers)",
        summary.launch_flows, summary.launches_left_out));
  }
  if (summary.critical_path && summary.critical_path->arrows_left_out > 0) {
    summary.notes.push_back(fmt::format(
        "critical path arrows drawn for its first {} hops from a call or operation to the next; the {} hops after "
        "them have none (its slices are all there)",
        summary.critical_path->arrows, summary.critical_path->arrows_left_out));
  }
  if (!summary.critical_path) {
    summary.notes.push_back(
        "no critical path: no NVTX stage repeats three times or more and no loop of repeated kernels was found");
  }
  nlohmann::json metadata = {{"kscope_run", run_id},
                             {"launch_flows", summary.launch_flows},
                             {"launches_without_flow", summary.launches_left_out}};
  if (summary.critical_path) {
    const DrawnPath& p = *summary.critical_path;
    metadata["critical_path_flows"] = p.arrows;
    metadata["critical_path_hops_without_flow"] = p.arrows_left_out;
    metadata["critical_path"] =
        fmt::format("{} #{} of {} (the median), {} ns", p.step_set, p.step, p.steps, p.end - p.start);
  }
  KSCOPE_RETURN_IF_ERROR(out->Finish(metadata));
  summary.events = out->events();
  summary.bytes = out->bytes();
  return summary;
}

}  // namespace kscope::report
