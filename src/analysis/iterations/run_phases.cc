#include "analysis/iterations/run_phases.h"

#include <algorithm>

namespace kscope::analysis {

namespace {

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

IntervalSet Merged(const LoopWindows& loop, bool steady) {
  std::vector<TimeWindow> out;
  for (size_t i = 0; i < loop.windows.size(); ++i) {
    if ((loop.steady[i] != 0) == steady) out.push_back(loop.windows[i]);
  }
  return MergeIntervals(std::move(out));
}

IntervalSet Union(const IntervalSet& a, const IntervalSet& b) {
  std::vector<TimeWindow> all(a.begin(), a.end());
  all.insert(all.end(), b.begin(), b.end());
  return MergeIntervals(std::move(all));
}

// GPU-idle gaps of at least `min_gap_ns` in `outside` during which a module was loaded.
IntervalSet CompilationGaps(const TimelineEvents& events, const IntervalSet& outside, const WorkloadTraits& traits,
                            int64_t min_gap_ns) {
  IntervalSet out;
  if (traits.module_loads.empty()) return out;
  for (const TimeWindow& gap : Complement(events.gpu_busy, outside)) {
    if (gap.end - gap.start >= min_gap_ns && OverlapNs(traits.module_loads, gap) > 0) out.push_back(gap);
  }
  return out;
}

RunPhase Measure(const TimelineEvents& events, std::string kind, const IntervalSet& parts, int64_t span_ns) {
  RunPhase p;
  p.kind = std::move(kind);
  p.parts = static_cast<int64_t>(parts.size());
  if (parts.empty()) return p;
  p.start = parts.front().start;
  p.end = parts.back().end;
  p.wall_ns = TotalNs(parts);
  p.gpu_busy_ns = TotalNs(Intersect(events.gpu_busy, parts));
  p.share_pct = Pct(p.wall_ns, span_ns);
  p.gpu_busy_pct = Pct(p.gpu_busy_ns, p.wall_ns);
  const auto& starts = events.kernels.start;
  for (const TimeWindow& w : parts) {
    p.kernels +=
        std::lower_bound(starts.begin(), starts.end(), w.end) - std::lower_bound(starts.begin(), starts.end(), w.start);
  }
  return p;
}

}  // namespace

std::vector<RunPhase> SplitRun(const TimelineEvents& events, const LoopWindows& loop, const WorkloadTraits& traits,
                               int64_t min_gap_ns) {
  const IntervalSet steady = Merged(loop, true);
  if (steady.empty() || events.span.end <= events.span.start) return {};
  const IntervalSet warmup = Merged(loop, false);
  const IntervalSet span{events.span};
  const IntervalSet loop_set = Union(steady, warmup);
  const IntervalSet outside = Complement(loop_set, span);
  // Compilation happens wherever the run is not steady: before the loop, or inside its first
  // iterations (torch.compile compiles while the first step runs).
  const IntervalSet compilation = CompilationGaps(events, Complement(steady, span), traits, min_gap_ns);
  const IntervalSet rest = Complement(compilation, outside);
  const IntervalSet warmup_only = Complement(compilation, warmup);
  IntervalSet before, between, after;
  for (const TimeWindow& w : rest) {
    if (w.end <= loop_set.front().start)
      before.push_back(w);
    else if (w.start >= loop_set.back().end)
      after.push_back(w);
    else
      between.push_back(w);
  }
  const int64_t span_ns = events.span.end - events.span.start;
  std::vector<RunPhase> out;
  for (auto& [kind, parts] : std::vector<std::pair<std::string, const IntervalSet*>>{{"start-up", &before},
                                                                                     {"compilation", &compilation},
                                                                                     {"warm-up", &warmup_only},
                                                                                     {"steady", &steady},
                                                                                     {"between", &between},
                                                                                     {"tail", &after}}) {
    if (!parts->empty()) out.push_back(Measure(events, kind, *parts, span_ns));
  }
  return out;
}

}  // namespace kscope::analysis
