// The critical path of one steady step as a track of the Perfetto trace (report/perfetto_trace.h):
// the step set a user expects first (the first kscope whatif answers for: the repeating stage
// with the most time, else the iterations), its median step by recorded length (the lower
// middle one of an even count), walked back on the unedited replay (analysis/graph/critical_path.h).
// Its pieces are slices inside the step's slice; an arrow joins each call or operation the path
// runs through to the next one's.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "analysis/graph/critical_path.h"
#include "analysis/graph/replay.h"
#include "analysis/graph/whatif.h"
#include "report/perfetto_parts.h"

namespace kscope::report::perfetto {

namespace g = analysis::graph;

Result<std::optional<DrawnPath>> WriteCriticalPath(store::Store& store, TraceRun& run,
                                                   const analysis::AnalysisOptions& config, ChromeTraceWriter& out,
                                                   std::vector<Flow>& flows) {
  const g::DependencyGraph& graph = run.graph;
  auto sets = g::FindStepSets(store, run.run_id, graph, config.stages.warmup);
  if (!sets.ok()) return sets.error();
  if (sets->empty() || sets->front().steps.empty()) return std::optional<DrawnPath>();
  const g::StepSet& set = sets->front();
  auto recorded = [&](const g::StepMarker& m) { return graph.recorded(m.point) - m.offset; };
  std::vector<size_t> order(set.steps.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const g::Step &x = set.steps[a], &y = set.steps[b];
    return recorded(x.end) - recorded(x.begin) < recorded(y.end) - recorded(y.begin);
  });
  const size_t k = order[(order.size() - 1) / 2];
  const g::Step& step = set.steps[k];
  const g::Replayed replayed = g::Replay(graph);
  DrawnPath drawn{.step_set = set.name,
                  .step = static_cast<int64_t>(k + 1),
                  .steps = static_cast<int64_t>(set.steps.size()),
                  .start = step.begin.At(replayed),
                  .end = step.end.At(replayed)};
  static const JsonString kStep("step"), kPath("critical path");
  const TraceTrack track = AnalysisTrack(run, out, fmt::format("critical path: {} #{}", set.name, drawn.step));
  out.Slice(track, fmt::format("{} #{} (the median of {})", set.name, drawn.step, drawn.steps), kStep, drawn.start,
            drawn.end - drawn.start,
            TraceArgs()
                .Add("marked_by", set.how)
                .Add("warm_up_steps_left_out", set.warmup)
                .Add("pid", analysis::PidOf(step.global_pid)));
  uint32_t last = 0;
  bool any = false;
  for (const g::PathSegment& s : g::WalkBack(graph, replayed, step.end.point, drawn.start)) {
    const int64_t start = std::max(s.start, drawn.start), end = std::min(s.end, drawn.end);
    if (end <= start) continue;
    const std::string_view part = g::PathPartName(s.part);
    const std::string node = run.NodeName(s.node);
    out.Slice(track, fmt::format("{}: {}", part, node), kPath, start, end - start,
              TraceArgs().Add("part", part).Add("node", node).Add("track", run.TrackName(s.node)));
    drawn.path_ns += end - start;
    ++drawn.pieces;
    if (any && s.node == last) continue;
    if (any) {
      flows.push_back({"critical path", run.SliceOf(last), run.SliceOf(s.node)});
      ++drawn.arrows;
    }
    last = s.node;
    any = true;
  }
  return std::optional<DrawnPath>(drawn);
}

}  // namespace kscope::report::perfetto
