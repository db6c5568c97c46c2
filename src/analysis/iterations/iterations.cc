#include "analysis/iterations/iterations.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "store/column_codec.h"
#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {

// Polynomial hashes of every stretch of the name sequence, from prefix hashes.
class SequenceHash {
 public:
  explicit SequenceHash(const std::vector<int64_t>& symbols) : prefix_(symbols.size() + 1), power_(symbols.size() + 1) {
    constexpr uint64_t kBase = 0x100000001b3ULL;
    power_[0] = 1;
    for (size_t i = 0; i < symbols.size(); ++i) {
      const uint64_t mixed = static_cast<uint64_t>(symbols[i]) * 0x9e3779b97f4a7c15ULL + 1;
      prefix_[i + 1] = prefix_[i] * kBase + mixed;
      power_[i + 1] = power_[i] * kBase;
    }
  }
  // The stretch [a, b).
  [[nodiscard]] uint64_t Of(size_t a, size_t b) const { return prefix_[b] - prefix_[a] * power_[b - a]; }
  [[nodiscard]] size_t size() const { return prefix_.size() - 1; }

 private:
  std::vector<uint64_t> prefix_, power_;
};

// The longest run of equal consecutive stretches between `anchors` (positions, ascending).
struct Run {
  size_t first = 0;   // position where the run starts
  size_t period = 0;  // kernels per repeat
  size_t repeats = 0;
  [[nodiscard]] size_t covered() const { return period * repeats; }
};

// Whether the stretch of `period` kernels at `at` equals `ref`.
bool Repeats(const SequenceHash& h, size_t at, size_t period, uint64_t ref) {
  return at + period <= h.size() && h.Of(at, at + period) == ref;
}

Run LongestRun(const SequenceHash& h, const std::vector<size_t>& anchors) {
  Run best;
  size_t j = 0;
  while (j + 1 < anchors.size()) {
    const size_t len = anchors[j + 1] - anchors[j];
    const uint64_t ref = h.Of(anchors[j], anchors[j + 1]);
    size_t k = j + 1;
    while (k + 1 < anchors.size() && anchors[k + 1] - anchors[k] == len && h.Of(anchors[k], anchors[k + 1]) == ref) ++k;
    size_t repeats = k - j;
    if (Repeats(h, anchors[k], len, ref)) ++repeats;  // the stretch after the last anchor
    if (repeats * len > best.covered()) best = {anchors[j], len, repeats};
    j = k;
  }
  return best;
}

// The run grown backwards and forwards from its first stretch, as far as the stretches repeat.
Run Extend(const SequenceHash& h, size_t first, size_t period) {
  if (period == 0 || first + period > h.size()) return {};
  const uint64_t ref = h.Of(first, first + period);
  while (first >= period && h.Of(first - period, first) == ref) first -= period;
  size_t repeats = 1;
  while (Repeats(h, first + repeats * period, period, ref)) ++repeats;
  return {first, period, repeats};
}

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

int64_t MedianOf(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The rotation of the period whose first kernel follows the longest median idle gap.
size_t BestPhase(const Run& run, const std::vector<int64_t>& gaps) {
  size_t best = 0;
  int64_t best_gap = -1;
  for (size_t r = 0; r < run.period; ++r) {
    std::vector<int64_t> v;
    for (size_t j = 0; j < run.repeats; ++j) {
      const size_t at = run.first + r + j * run.period;
      if (at < gaps.size()) v.push_back(gaps[at]);
    }
    const int64_t m = MedianOf(std::move(v));
    if (m > best_gap) {
      best_gap = m;
      best = r;
    }
  }
  return best;
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

std::string IterationSourceName(IterationSource s) {
  switch (s) {
    case IterationSource::kKernelSequence: return "kernel sequence";
    case IterationSource::kCudaGraph: return "CUDA graph launches";
    case IterationSource::kNone: break;
  }
  return "none";
}

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
  const auto enough = [&](const Run& r) {
    return r.repeats >= static_cast<size_t>(std::max<int64_t>(min_iterations, 2));
  };

  Run run;
  if (const auto anchors = GraphAnchors(in, loop.order); !anchors.empty()) {
    const Run graph = LongestRun(hash, anchors);
    run = Extend(hash, graph.first, graph.period);
    if (enough(run)) loop.source = IterationSource::kCudaGraph;
  }
  if (loop.source == IterationSource::kNone) {
    const Run seq = SequenceRun(hash, symbols);
    if (!enough(seq)) return loop;
    run = Extend(hash, seq.first + BestPhase(seq, GapsBefore(in, loop.order)), seq.period);
    if (!enough(run)) run = Extend(hash, seq.first, seq.period);
    if (!enough(run)) return loop;
    loop.source = IterationSource::kKernelSequence;
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

Result<IterationInput> LoadIterationInput(store::Store& store, int64_t run_id, const NsysEvents& nsys) {
  auto c = store::ReadColumns(store.db(), run_id, store::kKernelStream, {store::kernel::kGraphNode});
  if (!c.ok()) return c.error();
  const auto& k = nsys.kernels;
  if ((*c)[0].size() != k.start.size())
    return Error{"", "kernel columns of one run differ in length", "re-import the run"};
  IterationInput in{.start = k.start, .end = k.end, .name = k.name, .graph_launch = {}};
  in.graph_launch.assign(k.start.size(), -1);
  std::map<std::pair<int64_t, int64_t>, int64_t> ids;  // (process, correlation) -> launch id
  for (size_t i = 0; i < k.start.size(); ++i) {
    if ((*c)[0][i] == store::kNull) continue;
    const auto key = std::make_pair(k.global_pid[i], k.correlation[i]);
    in.graph_launch[i] = ids.emplace(key, static_cast<int64_t>(ids.size())).first->second;
  }
  return in;
}

}  // namespace kscope::analysis
