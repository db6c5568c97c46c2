#include "analysis/iterations/iterations.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "analysis/iterations/iteration_boundary.h"
#include "analysis/iterations/sequence_repeats.h"
#include "analysis/names/api_names.h"
#include "store/column_codec.h"
#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {

// GPU idle time before each position: its start less the latest end of the kernels before it.
std::vector<int64_t> GapsBefore(const IterationInput& in, const std::vector<int64_t>& order) {
  std::vector<int64_t> gaps(order.size(), 0);
  int64_t latest_end = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto row = static_cast<size_t>(order[i]);
    if (i > 0) gaps[i] = std::max<int64_t>(0, in.start[row] - latest_end);
    latest_end = i == 0 ? in.end[row] : std::max(latest_end, in.end[row]);
  }
  return gaps;
}

// Positions of each graph launch's first kernel, ascending; empty when fewer than two.
std::vector<size_t> GraphAnchors(const IterationInput& in, const std::vector<int64_t>& order) {
  std::map<int64_t, size_t> first_of;
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t g = in.graph_launch[static_cast<size_t>(order[i])];
    if (g >= 0) first_of.emplace(g, i);
  }
  std::vector<size_t> anchors;
  for (const auto& [g, at] : first_of) anchors.push_back(at);
  std::sort(anchors.begin(), anchors.end());
  return anchors.size() >= 2 ? anchors : std::vector<size_t>{};
}

// The best run over every kernel name's launches.
Run SequenceRun(const SequenceHash& h, const std::vector<int64_t>& symbols) {
  std::unordered_map<int64_t, std::vector<size_t>> positions;
  for (size_t i = 0; i < symbols.size(); ++i) positions[symbols[i]].push_back(i);
  Run best;
  for (const auto& [name, anchors] : positions) {
    const Run r = LongestRun(h, anchors);
    if (r.covered() > best.covered() || (r.covered() == best.covered() && r.first < best.first)) best = r;
  }
  return best;
}

std::vector<Iteration> Windows(const IterationInput& in, const std::vector<int64_t>& order, const Run& run) {
  std::vector<Iteration> out;
  for (size_t j = 0; j < run.repeats; ++j) {
    Iteration it;
    it.first_kernel = static_cast<int64_t>(run.first + j * run.period);
    it.kernels = static_cast<int64_t>(run.period);
    it.start = in.start[static_cast<size_t>(order[run.first + j * run.period])];
    for (size_t i = 0; i < run.period; ++i) {
      const auto row = static_cast<size_t>(order[run.first + j * run.period + i]);
      it.kernel_ns += in.end[row] - in.start[row];
      it.end = std::max(it.end, in.end[row]);
    }
    out.push_back(it);
  }
  for (size_t j = 0; j + 1 < out.size(); ++j) out[j].end = out[j + 1].start;
  return out;
}

// Kernel names of the stretch [a, b), counted.
std::map<int64_t, int64_t> NameCounts(const std::vector<int64_t>& symbols, size_t a, size_t b) {
  std::map<int64_t, int64_t> out;
  for (size_t i = a; i < b; ++i) ++out[symbols[i]];
  return out;
}

// The share of `period` kernels that two stretches have in common, name by name.
double Shared(const std::map<int64_t, int64_t>& x, const std::map<int64_t, int64_t>& y, size_t period) {
  int64_t common = 0;
  for (const auto& [name, n] : x) {
    if (auto it = y.find(name); it != y.end()) common += std::min(n, it->second);
  }
  return static_cast<double>(common) / static_cast<double>(period);
}

// The period-long stretches just before the loop that share at least half their kernel names
// with its iterations (walked back from the loop's start): iterations that differ.
std::vector<Iteration> Differing(const IterationInput& in, const std::vector<int64_t>& order,
                                 const std::vector<int64_t>& symbols, const Run& run) {
  std::vector<Iteration> out;
  const auto ref = NameCounts(symbols, run.first, run.first + run.period);
  for (size_t at = run.first; at >= run.period; at -= run.period) {
    if (2 * Shared(NameCounts(symbols, at - run.period, at), ref, run.period) < 1) break;
    Iteration it{.start = in.start[static_cast<size_t>(order[at - run.period])],
                 .end = in.start[static_cast<size_t>(order[at])],
                 .first_kernel = static_cast<int64_t>(at - run.period),
                 .kernels = static_cast<int64_t>(run.period),
                 .kernel_ns = 0};
    for (size_t i = at - run.period; i < at; ++i) {
      const auto row = static_cast<size_t>(order[i]);
      it.kernel_ns += in.end[row] - in.start[row];
    }
    out.insert(out.begin(), it);
  }
  return out;
}

}  // namespace

std::string IterationBoundaryName(IterationBoundary b) {
  switch (b) {
    case IterationBoundary::kGraphLaunch: return "CUDA graph launch";
    case IterationBoundary::kSynchronization: return "host synchronization";
    case IterationBoundary::kIdleGap: return "idle gap";
    case IterationBoundary::kNone: break;
  }
  return "none";
}

std::string IterationSourceName(IterationSource s) {
  switch (s) {
    case IterationSource::kKernelSequence: return "kernel sequence";
    case IterationSource::kCudaGraph: return "CUDA graph launches";
    case IterationSource::kNone: break;
  }
  return "none";
}

namespace {

// The kernels' starts in start order.
std::vector<int64_t> OrderedStarts(const IterationInput& in, const std::vector<int64_t>& order) {
  std::vector<int64_t> out;
  out.reserve(order.size());
  for (int64_t row : order) out.push_back(in.start[static_cast<size_t>(row)]);
  return out;
}

// The loop found from the kernel names alone: the longest run of the smallest repeat, its
// iterations starting after the period's longest idle gap; an empty run when none is long enough.
Run SequenceLoop(const SequenceHash& hash, const std::vector<int64_t>& symbols, const std::vector<int64_t>& gaps,
                 size_t enough) {
  const Run seq = SequenceRun(hash, symbols);
  if (seq.repeats < enough) return {};
  Run run = Extend(hash, seq.first + BestPhase(seq, gaps), seq.period);
  if (run.repeats < enough) run = Extend(hash, seq.first, seq.period);
  return run.repeats < enough ? Run{} : run;
}

// Where the host synchronizes at one place every k repeats, the iteration is the span between
// two synchronizations (k repeats, starting after one); else the run stays, its boundary judged
// by its idle gaps.
void MarkBoundary(const SequenceHash& hash, const IterationInput& in, const std::vector<int64_t>& order,
                  const std::vector<int64_t>& gaps, size_t enough, Run& run, IterationLoop& loop) {
  loop.repeat_kernels = static_cast<int64_t>(run.period);
  const auto cadence = FindSyncCadence(SyncPlaces(OrderedStarts(in, order), in.sync_end), run);
  if (cadence) {
    const Run synced = Extend(hash, cadence->Start(run), cadence->every * run.period);
    if (synced.repeats >= enough) {
      run = synced;
      loop.sync_repeats = static_cast<int64_t>(cadence->every);
      loop.boundary = IterationBoundary::kSynchronization;
      return;
    }
  }
  loop.boundary_gap_ratio = BoundaryGapRatio(run, gaps);
  if (loop.boundary_gap_ratio >= kStandoutGapRatio) loop.boundary = IterationBoundary::kIdleGap;
}

}  // namespace

IterationLoop FindIterations(const IterationInput& in, int64_t min_iterations) {
  IterationLoop loop;
  loop.order.resize(in.start.size());
  std::iota(loop.order.begin(), loop.order.end(), 0);
  std::stable_sort(loop.order.begin(), loop.order.end(), [&](int64_t a, int64_t b) {
    return in.start[static_cast<size_t>(a)] < in.start[static_cast<size_t>(b)];
  });
  std::vector<int64_t> symbols;
  symbols.reserve(loop.order.size());
  for (int64_t row : loop.order) symbols.push_back(in.name[static_cast<size_t>(row)]);
  const SequenceHash hash(symbols);
  const auto enough = static_cast<size_t>(std::max<int64_t>(min_iterations, 2));

  Run run;
  if (const auto anchors = GraphAnchors(in, loop.order); !anchors.empty()) {
    const Run graph = LongestRun(hash, anchors);
    run = Extend(hash, graph.first, graph.period);
    if (run.repeats >= enough) {
      loop.source = IterationSource::kCudaGraph;
      loop.boundary = IterationBoundary::kGraphLaunch;
      loop.repeat_kernels = static_cast<int64_t>(run.period);
    }
  }
  if (loop.source == IterationSource::kNone) {
    const std::vector<int64_t> gaps = GapsBefore(in, loop.order);
    run = SequenceLoop(hash, symbols, gaps, enough);
    if (run.repeats == 0) return loop;
    loop.source = IterationSource::kKernelSequence;
    MarkBoundary(hash, in, loop.order, gaps, enough, run, loop);
  }
  loop.period = static_cast<int64_t>(run.period);
  loop.iterations = Windows(in, loop.order, run);
  loop.differing = Differing(in, loop.order, symbols, run);
  std::map<int64_t, bool> launches;
  for (size_t i = run.first; i < run.first + run.covered(); ++i) {
    const int64_t g = in.graph_launch[static_cast<size_t>(loop.order[i])];
    if (g >= 0) launches[g] = true;
  }
  loop.graph_launches = static_cast<int64_t>(launches.size());
  return loop;
}

namespace {

// When each of the host's synchronizing calls returned, ascending.
Status AddSyncEnds(store::Store& store, const NsysEvents& nsys, IterationInput& in) {
  std::vector<int64_t> ids(nsys.api.name.begin(), nsys.api.name.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto names = store.Strings(ids);
  if (!names.ok()) return names.error();
  std::unordered_map<int64_t, bool> synchronizes;
  for (const auto& [id, text] : *names) synchronizes[id] = SynchronizesHost(text);
  for (size_t i = 0; i < nsys.api.name.size(); ++i) {
    if (synchronizes[nsys.api.name[i]]) in.sync_end.push_back(nsys.api.end[i]);
  }
  std::sort(in.sync_end.begin(), in.sync_end.end());
  return Status::Ok();
}

}  // namespace

Result<IterationInput> LoadIterationInput(store::Store& store, int64_t run_id, const NsysEvents& nsys) {
  auto c = store::ReadColumns(store.db(), run_id, store::kKernelStream, {store::kernel::kGraphNode});
  if (!c.ok()) return c.error();
  const auto& k = nsys.kernels;
  if ((*c)[0].size() != k.start.size())
    return Error{"", "kernel columns of one run differ in length", "re-import the run"};
  IterationInput in{.start = k.start, .end = k.end, .name = k.name, .graph_launch = {}, .sync_end = {}};
  in.graph_launch.assign(k.start.size(), -1);
  std::map<std::pair<int64_t, int64_t>, int64_t> ids;  // (process, correlation) -> launch id
  for (size_t i = 0; i < k.start.size(); ++i) {
    if ((*c)[0][i] == store::kNull) continue;
    const auto key = std::make_pair(k.global_pid[i], k.correlation[i]);
    in.graph_launch[i] = ids.emplace(key, static_cast<int64_t>(ids.size())).first->second;
  }
  KSCOPE_RETURN_IF_ERROR(AddSyncEnds(store, nsys, in));
  return in;
}

}  // namespace kscope::analysis
