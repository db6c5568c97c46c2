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

// One stretch of the span and what it was for.
struct Piece {
  TimeWindow w;
  std::string kind;
};

// Every instant of the span in exactly one piece, in time order.
std::vector<Piece> Pieces(const TimelineEvents& events, const LoopWindows& loop, const WorkloadTraits& traits,
                          int64_t min_gap_ns) {
  const IntervalSet steady = Merged(loop, true);
  const IntervalSet span{events.span};
  const IntervalSet loop_set = Union(steady, Merged(loop, false));
  const IntervalSet outside = Complement(loop_set, span);
  // Compilation happens wherever the run is not steady: before the loop, or inside its first
  // iterations (torch.compile compiles while the first step runs).
  const IntervalSet compilation = CompilationGaps(events, Complement(steady, span), traits, min_gap_ns);
  std::vector<Piece> out;
  for (const TimeWindow& w : steady) out.push_back({w, "steady"});
  for (const TimeWindow& w : compilation) out.push_back({w, "compilation"});
  for (const TimeWindow& w : Complement(compilation, Complement(steady, loop_set))) out.push_back({w, "warm-up"});
  for (const TimeWindow& w : Complement(compilation, outside)) {
    const bool before = w.end <= loop_set.front().start, after = w.start >= loop_set.back().end;
    out.push_back({w, before ? "start-up" : after ? "tail" : "between"});
  }
  std::sort(out.begin(), out.end(), [](const Piece& a, const Piece& b) { return a.w.start < b.w.start; });
  return out;
}

RunPhase Measure(const TimelineEvents& events, const Piece& row, int64_t span_ns) {
  RunPhase p;
  p.kind = row.kind;
  p.start = row.w.start;
  p.end = row.w.end;
  p.wall_ns = row.w.end - row.w.start;
  p.gpu_busy_ns = OverlapNs(events.gpu_busy, row.w);
  p.share_pct = Pct(p.wall_ns, span_ns);
  p.gpu_busy_pct = Pct(p.gpu_busy_ns, p.wall_ns);
  const auto& starts = events.kernels.start;
  p.kernels = std::lower_bound(starts.begin(), starts.end(), row.w.end) -
              std::lower_bound(starts.begin(), starts.end(), row.w.start);
  return p;
}

}  // namespace

std::vector<RunPhase> SplitRun(const TimelineEvents& events, const LoopWindows& loop, const WorkloadTraits& traits,
                               int64_t min_gap_ns) {
  if (Merged(loop, true).empty() || events.span.end <= events.span.start) return {};
  const std::vector<Piece> pieces = Pieces(events, loop, traits, min_gap_ns);
  struct Row {
    Piece merged;
    int64_t parts = 0, between_ns = 0;
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    const bool inside_steady = p.kind == "between" && i > 0 && i + 1 < pieces.size() &&
                               pieces[i - 1].kind == "steady" && pieces[i + 1].kind == "steady";
    const std::string kind = inside_steady ? "steady" : p.kind;
    if (rows.empty() || rows.back().merged.kind != kind) rows.push_back({{{p.w.start, p.w.start}, kind}});
    Row& row = rows.back();
    row.merged.w.end = p.w.end;
    ++row.parts;
    if (inside_steady) row.between_ns += p.w.end - p.w.start;
  }
  const int64_t span_ns = events.span.end - events.span.start;
  std::vector<RunPhase> out;
  for (const Row& row : rows) {
    out.push_back(Measure(events, row.merged, span_ns));
    out.back().parts = row.parts;
    out.back().between_ns = row.between_ns;
  }
  return out;
}

}  // namespace kscope::analysis
