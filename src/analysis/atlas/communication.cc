// Communication: per model and collective kind, the launches and GPU time of the communication
// kernels (analysis/names/communication.h) and the part of it that no compute kernel of the same
// rank hides. Only the runs whose kernel names include a communication kernel are read, event by
// event; the others add nothing.
#include "analysis/names/communication.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "analysis/atlas/parts.h"
#include "analysis/timeline/intervals.h"
#include "analysis/timeline/kernel_totals.h"
#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/rank_kernels.h"
#include "analysis/timeline/ranks.h"

namespace kscope::analysis::atlas {

namespace {

// One model's collective kind, as it adds up.
struct KindTally {
  std::set<int64_t> runs;
  int64_t ranks = 0, launches = 0, ns = 0, exposed_ns = 0;
};
using Tallies = std::map<std::pair<std::string, CollectiveKind>, KindTally>;  // (model, kind)

// A run's kernels and the ranks they belong to: the whole run, or its one rank (Atlas::rank).
struct RunKernels {
  NsysEvents events;
  std::vector<RunRank> ranks;
};

Result<RunKernels> LoadRunKernels(store::Store& store, int64_t run_id, const std::optional<int64_t>& rank) {
  if (rank) {
    auto selection = LoadRank(store, run_id, *rank);
    if (!selection.ok()) return selection.error();
    return RunKernels{std::move(selection->events), {selection->rank}};
  }
  auto events = LoadNsysEvents(store, run_id);
  if (!events.ok()) return events.error();
  auto ranks = ReadRanks(store, run_id);
  if (!ranks.ok()) return ranks.error();
  return RunKernels{std::move(events).value(), std::move(ranks).value()};
}

// The kernel names of the events, by string id.
Result<std::unordered_map<int64_t, std::string>> NamesOf(store::Store& store, const NsysEvents& events) {
  std::vector<int64_t> ids(events.kernels.name.begin(), events.kernels.name.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return store.Strings(ids);
}

// Adds one rank's communication launches, each less its overlap with the rank's compute.
void AddRank(const RankKernels& rank, int64_t run_id, const std::string& model, Tallies& tallies) {
  const IntervalSet compute = ComputeUnion(rank);
  std::set<CollectiveKind> seen;
  for (const CommunicationLaunch& c : rank.communication) {
    KindTally& t = tallies[{model, c.kind}];
    t.runs.insert(run_id);
    ++t.launches;
    t.ns += c.ns();
    t.exposed_ns += c.ns() - OverlapNs(compute, c.window);
    if (seen.insert(c.kind).second) ++t.ranks;
  }
}

double Percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::vector<CommunicationRow> Rows(const Tallies& tallies, const Atlas& atlas) {
  std::map<std::string, int64_t> model_ns;
  for (const auto& r : atlas.runs) model_ns[r.model] += r.kernel_ns;
  std::vector<CommunicationRow> rows;
  for (const auto& [key, t] : tallies) {
    rows.push_back({key.first, std::string(CollectiveKindName(key.second)), static_cast<int64_t>(t.runs.size()),
                    t.ranks, t.launches, t.ns, Percent(t.ns, model_ns[key.first]), t.exposed_ns,
                    Percent(t.exposed_ns, t.ns)});
  }
  std::sort(rows.begin(), rows.end(), [](const CommunicationRow& a, const CommunicationRow& b) {
    if (a.model != b.model) return a.model < b.model;
    if (a.gpu_time_ns != b.gpu_time_ns) return a.gpu_time_ns > b.gpu_time_ns;
    return a.kind < b.kind;
  });
  return rows;
}

}  // namespace

Status AddCommunication(store::Store& store, const NsysFacts& facts, Atlas& atlas) {
  Tallies tallies;
  for (const AtlasRun& run : atlas.runs) {
    if (!facts.communication_runs.contains(run.id)) continue;
    auto kernels = LoadRunKernels(store, run.id, atlas.rank);
    if (!kernels.ok()) return kernels.error();
    auto names = NamesOf(store, kernels->events);
    if (!names.ok()) return names.error();
    for (const RankKernels& rank : SplitKernelsByRank(kernels->events, kernels->ranks, *names)) {
      AddRank(rank, run.id, run.model, tallies);
    }
  }
  atlas.communication = Rows(tallies, atlas);
  return Status::Ok();
}

}  // namespace kscope::analysis::atlas
