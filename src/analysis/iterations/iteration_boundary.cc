#include "analysis/iterations/iteration_boundary.h"

#include <algorithm>
#include <limits>
#include <map>

namespace kscope::analysis {

namespace {

int64_t MedianOf(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Whether `repeats` (ascending) follow each other at one interval, returned (0 when not).
size_t OneInterval(const std::vector<size_t>& repeats) {
  if (repeats.size() < 2) return 0;
  const size_t every = repeats[1] - repeats[0];
  for (size_t i = 1; i + 1 < repeats.size(); ++i) {
    if (repeats[i + 1] - repeats[i] != every) return 0;
  }
  return every;
}

}  // namespace

std::vector<int64_t> PhaseGaps(const Run& run, const std::vector<int64_t>& gaps) {
  std::vector<int64_t> out(run.period, 0);
  for (size_t r = 0; r < run.period; ++r) {
    std::vector<int64_t> v;
    for (size_t j = 0; j < run.repeats; ++j) {
      const size_t at = run.first + r + j * run.period;
      if (at < gaps.size()) v.push_back(gaps[at]);
    }
    out[r] = MedianOf(std::move(v));
  }
  return out;
}

size_t BestPhase(const Run& run, const std::vector<int64_t>& gaps) {
  const std::vector<int64_t> by_phase = PhaseGaps(run, gaps);
  return static_cast<size_t>(std::max_element(by_phase.begin(), by_phase.end()) - by_phase.begin());
}

double BoundaryGapRatio(const Run& run, const std::vector<int64_t>& gaps) {
  const std::vector<int64_t> by_phase = PhaseGaps(run, gaps);
  if (by_phase.size() < 2 || by_phase.front() <= 0) return 0;
  const int64_t other = *std::max_element(by_phase.begin() + 1, by_phase.end());
  if (other <= 0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(by_phase.front()) / static_cast<double>(other);
}

std::vector<size_t> SyncPlaces(const std::vector<int64_t>& starts, const std::vector<int64_t>& sync_end) {
  std::vector<size_t> out;
  out.reserve(sync_end.size());
  for (int64_t end : sync_end) {
    out.push_back(static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), end) - starts.begin()));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<SyncCadence> FindSyncCadence(const std::vector<size_t>& places, const Run& run) {
  if (run.period == 0) return std::nullopt;
  std::map<size_t, std::vector<size_t>> repeats_by_phase;  // ascending, as `places` is
  for (size_t at : places) {
    if (at < run.first || at > run.first + run.covered()) continue;
    const size_t offset = at - run.first;
    repeats_by_phase[offset % run.period].push_back(offset / run.period);
  }
  const std::vector<size_t>* most = nullptr;
  size_t phase = 0;
  for (const auto& [p, repeats] : repeats_by_phase) {
    if (most == nullptr || repeats.size() > most->size()) {
      most = &repeats;
      phase = p;
    }
  }
  if (most == nullptr || most->size() < kMinSyncs) return std::nullopt;
  const size_t every = OneInterval(*most);
  if (every == 0) return std::nullopt;
  return SyncCadence{.phase = phase, .every = every, .first_repeat = most->front(), .count = most->size()};
}

}  // namespace kscope::analysis
