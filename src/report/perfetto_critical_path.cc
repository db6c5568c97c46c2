// The critical path of one steady step as a track of the Perfetto trace (report/perfetto_trace.h):
// the step set kscope whatif answers for first (analysis/graph/whatif.h PrimaryStepSet: a stage
// repeating start to next start, else the iterations, else any set with steps), its median step by recorded length (the
// lower middle one of an even count), walked back on the unedited replay (analysis/graph/critical_path.h). Its pieces
// are slices inside the step's slice; an arrow joins each call or operation the path runs through to the next one's.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "analysis/graph/critical_path.h"
#include "analysis/graph/replay.h"
#include "analysis/graph/whatif.h"
#include "report/perfetto_parts.h"

namespace kscope::report::perfetto {

namespace g = analysis::graph;

namespace {

// What a piece shows, escaped once per part and call or operation name, and per track: a step's
// path runs through the same few kernels and calls thousands of times.
class PieceNames {
 public:
  explicit PieceNames(const TraceRun& run) : run_(run) {}

  const JsonString& Slice(g::PathPart part, uint32_t node) {
    const auto key = std::make_pair(static_cast<int>(part), NameKey(node));
    auto it = slices_.find(key);
    if (it == slices_.end()) {
      it = slices_.emplace(key, JsonString(fmt::format("{}: {}", g::PathPartName(part), run_.NodeName(node)))).first;
    }
    return it->second;
  }
  const JsonString& Node(uint32_t node) {
    auto it = nodes_.find(NameKey(node));
    if (it == nodes_.end()) it = nodes_.emplace(NameKey(node), JsonString(run_.NodeName(node))).first;
    return it->second;
  }
  const JsonString& Part(g::PathPart part) {
    auto it = parts_.find(static_cast<int>(part));
    if (it == parts_.end()) it = parts_.emplace(static_cast<int>(part), JsonString(g::PathPartName(part))).first;
    return it->second;
  }
  const JsonString& Track(uint32_t node) {
    const int64_t tid = run_.SliceOf(node).track.tid;
    auto it = tracks_.find(tid);
    if (it == tracks_.end()) it = tracks_.emplace(tid, JsonString(run_.TrackName(node))).first;
    return it->second;
  }

 private:
  // A call's function, or an operation's name (after every function).
  [[nodiscard]] int64_t NameKey(uint32_t node) const {
    const g::GraphEvents& e = run_.graph.events;
    if (run_.graph.is_call(node)) return static_cast<int64_t>(e.function_of(e.calls.name[node]));
    const int64_t name = e.ops.name[run_.graph.op(node)];
    const auto it = std::lower_bound(e.op_name_ids.begin(), e.op_name_ids.end(), name);
    return static_cast<int64_t>(e.function_ids.size() + static_cast<size_t>(it - e.op_name_ids.begin()));
  }

  const TraceRun& run_;
  std::map<std::pair<int, int64_t>, JsonString> slices_;
  std::map<int64_t, JsonString> nodes_, tracks_;
  std::map<int, JsonString> parts_;
};

}  // namespace

Result<std::optional<DrawnPath>> WriteCriticalPath(store::Store& store, TraceRun& run,
                                                   const analysis::AnalysisOptions& config, size_t max_arrows,
                                                   ChromeTraceWriter& out, std::vector<Flow>& flows) {
  const g::DependencyGraph& graph = run.graph;
  auto sets = g::FindStepSets(store, run.run_id, graph, config.stages.warmup);
  if (!sets.ok()) return sets.error();
  const g::StepSet* primary = g::PrimaryStepSet(*sets);
  if (primary == nullptr) return std::optional<DrawnPath>();
  const g::StepSet& set = *primary;
  const size_t k = g::MedianStepIndex(graph, set);
  const g::Step& step = set.steps[k];
  const g::Replayed replayed = g::Replay(graph);
  DrawnPath drawn{.step_set = set.name,
                  .step = static_cast<int64_t>(k + 1),
                  .steps = static_cast<int64_t>(set.steps.size()),
                  .start = step.begin.At(replayed),
                  .end = step.end.At(replayed)};
  static const JsonString kStep("step"), kPath("critical path");
  std::string label = fmt::format("critical path: {} #{}", set.name, drawn.step);
  if (const auto rank = run.layout.rank.find(step.global_pid);
      rank != run.layout.rank.end() && run.layout.rank.size() > 1) {
    label += fmt::format(" (rank {})", rank->second.rank);
  }
  const TraceTrack track = AnalysisTrack(run, out, label);
  out.Slice(track, fmt::format("{} #{} (the median of {})", set.name, drawn.step, drawn.steps), kStep, drawn.start,
            drawn.end - drawn.start,
            TraceArgs()
                .Add("marked_by", set.how)
                .Add("warm_up_steps_left_out", set.warmup)
                .Add("pid", analysis::PidOf(step.global_pid)));
  PieceNames names(run);
  uint32_t last = 0;
  bool any = false;
  for (const g::PathSegment& s : g::WalkBack(graph, replayed, step.end.point, drawn.start)) {
    const int64_t start = std::max(s.start, drawn.start), end = std::min(s.end, drawn.end);
    if (end <= start) continue;
    out.Slice(
        track, names.Slice(s.part, s.node), kPath, start, end - start,
        TraceArgs().Add("part", names.Part(s.part)).Add("node", names.Node(s.node)).Add("track", names.Track(s.node)));
    drawn.path_ns += end - start;
    ++drawn.pieces;
    if (any && s.node == last) continue;
    if (any && drawn.arrows < static_cast<int64_t>(max_arrows)) {
      flows.push_back({"critical path", run.SliceOf(last), run.SliceOf(s.node)});
      ++drawn.arrows;
    } else if (any) {
      ++drawn.arrows_left_out;
    }
    last = s.node;
    any = true;
  }
  return std::optional<DrawnPath>(drawn);
}

}  // namespace kscope::report::perfetto
