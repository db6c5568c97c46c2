// Where the Perfetto trace draws each process, thread and stream (report/perfetto_parts.h).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "analysis/names/short_names.h"
#include "report/perfetto_parts.h"
#include "store/event_streams.h"

namespace kscope::report::perfetto {

namespace {

namespace g = analysis::graph;

// Ids the OS never gives (pid_max is at most 2^22): the tracks that are not a thread, and a
// process or thread whose id another host's took already.
constexpr int64_t kFirstSyntheticId = int64_t{1} << 24;

// Ids unique in their space: the OS's own where it is free, else the next synthetic one.
class Ids {
 public:
  int64_t Take(int64_t wanted) {
    if (wanted > 0 && wanted < kFirstSyntheticId && used_.insert(wanted).second) return wanted;
    return Next();
  }
  int64_t Next() {
    while (!used_.insert(next_).second) ++next_;
    return next_++;
  }

 private:
  std::set<int64_t> used_;
  int64_t next_ = kFirstSyntheticId;
};

std::string NameOr(const std::unordered_map<int64_t, std::string>& names, int64_t global_tid, std::string fallback) {
  const auto it = names.find(global_tid);
  return it == names.end() || it->second.empty() ? std::move(fallback) : it->second;
}

struct Process {
  std::set<int64_t> threads;                      // global tids, with calls or NVTX ranges
  std::set<std::pair<int64_t, int64_t>> streams;  // device, stream
};

}  // namespace

std::vector<std::string> SliceNames(const g::GraphEvents& events) {
  std::vector<uint8_t> kernel(events.op_name_ids.size(), 0);
  for (size_t op = 0; op < events.ops.name.size(); ++op) {
    if (events.ops.is_kernel[op] == 0) continue;
    const auto it = std::lower_bound(events.op_name_ids.begin(), events.op_name_ids.end(), events.ops.name[op]);
    kernel[static_cast<size_t>(it - events.op_name_ids.begin())] = 1;
  }
  std::vector<std::string> names;
  names.reserve(events.op_names.size());
  for (size_t i = 0; i < events.op_names.size(); ++i) {
    names.push_back(kernel[i] != 0 ? analysis::ShortKernelName(events.op_names[i]) : events.op_names[i]);
  }
  return names;
}

Status PlaceTracks(store::Store& store, TraceRun& run, ChromeTraceWriter& out) {
  const g::GraphEvents& e = run.graph.events;
  auto ranks = analysis::ReadRanks(store, run.run_id);
  if (!ranks.ok()) return ranks.error();
  auto names = store.ThreadNames(run.run_id);
  if (!names.ok()) return names.error();
  TraceLayout& layout = run.layout;
  for (const analysis::RunRank& r : *ranks) layout.rank[r.global_pid] = r;

  std::map<int64_t, Process> processes;  // by global pid
  for (const int64_t tid : e.calls.global_tid) processes[ProcessOf(tid)].threads.insert(tid);
  const auto& nvtx = run.nsys.nvtx;
  for (size_t r = 0; r < nvtx.start.size(); ++r) {
    if (nvtx.event_type[r] != store::nvtx::kDomainCreate)
      processes[ProcessOf(nvtx.global_tid[r])].threads.insert(nvtx.global_tid[r]);
  }
  for (size_t op = 0; op < e.ops.start.size(); ++op) {
    processes[e.ops.global_pid[op]].streams.emplace(e.ops.device[op], e.ops.stream[op]);
  }
  // Ranks first, in rank order; then the other processes (a launcher's, a data loader's).
  std::vector<int64_t> order;
  for (const analysis::RunRank& r : *ranks) {
    if (processes.contains(r.global_pid)) order.push_back(r.global_pid);
  }
  for (const auto& [pid, p] : processes) {
    if (!layout.rank.contains(pid)) order.push_back(pid);
  }
  const auto gpu_processes =
      std::count_if(processes.begin(), processes.end(), [](const auto& p) { return !p.second.streams.empty(); });

  Ids pids, tids;
  int64_t sort = 0;
  layout.analysis_pid = pids.Next();
  out.ProcessName(layout.analysis_pid, "kscope analysis");
  out.ProcessSortIndex(layout.analysis_pid, sort++);
  for (const int64_t global_pid : order) {
    const Process& p = processes[global_pid];
    const int64_t os_pid = analysis::PidOf(global_pid);
    const std::string main = NameOr(*names, global_pid | os_pid, "process");
    std::string label = fmt::format("{} (pid {})", main, os_pid);
    const auto rank = layout.rank.find(global_pid);
    if (rank != layout.rank.end() && ranks->size() > 1) label = fmt::format("rank {}: {}", rank->second.rank, label);
    if (!p.threads.empty()) {
      const int64_t pid = pids.Take(os_pid);
      out.ProcessName(pid, label);
      out.ProcessSortIndex(pid, sort++);
      std::vector<int64_t> threads(p.threads.begin(), p.threads.end());
      // The main thread first, then by thread id.
      std::stable_partition(threads.begin(), threads.end(), [&](int64_t t) { return (t & kThreadBits) == os_pid; });
      int64_t thread_sort = 0;
      for (const int64_t global_tid : threads) {
        const int64_t os_tid = global_tid & kThreadBits;
        const TraceTrack track{pid, tids.Take(os_tid)};
        layout.thread[global_tid] = track;
        layout.track_name[track.tid] = NameOr(*names, global_tid, fmt::format("thread {}", os_tid));
        out.ThreadName(track, layout.track_name[track.tid]);
        out.ThreadSortIndex(track, thread_sort++);
      }
    }
    std::map<int64_t, std::vector<int64_t>> devices;  // device -> its streams
    for (const auto& [device, stream] : p.streams) devices[device].push_back(stream);
    for (const auto& [device, streams] : devices) {
      const int64_t pid = pids.Next();
      const std::string gpu =
          gpu_processes > 1 ? fmt::format("GPU {} ({})", device, label) : fmt::format("GPU {}", device);
      out.ProcessName(pid, gpu);
      out.ProcessSortIndex(pid, sort++);
      int64_t stream_sort = 0;
      for (const int64_t stream : streams) {
        const TraceTrack track{pid, tids.Next()};
        layout.stream[{global_pid, device, stream}] = track;
        out.ThreadName(track, fmt::format("stream {}", stream));
        layout.track_name[track.tid] = fmt::format("stream {} of {}", stream, gpu);
        out.ThreadSortIndex(track, stream_sort++);
      }
    }
  }
  layout.next_tid = tids.Next();
  return Status::Ok();
}

TraceTrack AnalysisTrack(TraceRun& run, ChromeTraceWriter& out, std::string_view name) {
  TraceLayout& layout = run.layout;
  const TraceTrack track{layout.analysis_pid, layout.next_tid++};
  out.ThreadName(track, name);
  out.ThreadSortIndex(track, layout.next_sort++);
  layout.track_name[track.tid] = std::string(name);
  return track;
}

FlowPoint TraceRun::SliceOf(uint32_t node) const {
  const g::GraphEvents& e = graph.events;
  if (graph.is_call(node)) return {layout.thread.at(e.calls.global_tid[node]), e.calls.start[node]};
  const size_t op = graph.op(node);
  return {layout.stream.at({e.ops.global_pid[op], e.ops.device[op], e.ops.stream[op]}), e.ops.start[op]};
}

std::string TraceRun::NodeName(uint32_t node) const {
  const g::GraphEvents& e = graph.events;
  if (graph.is_call(node)) return e.function_name[e.function_of(e.calls.name[node])];
  const int64_t name = e.ops.name[graph.op(node)];
  const auto it = std::lower_bound(e.op_name_ids.begin(), e.op_name_ids.end(), name);
  return op_names[static_cast<size_t>(it - e.op_name_ids.begin())];
}

std::string TraceRun::TrackName(uint32_t node) const {
  const auto it = layout.track_name.find(SliceOf(node).track.tid);
  return it == layout.track_name.end() ? std::string() : it->second;
}

}  // namespace kscope::report::perfetto
