// Popularity: launches and GPU time per family (or kernel) over the selected runs, from the
// kernel_summary of each (nsys's cuda_gpu_kern_sum), and its share of each model's GPU time.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "analysis/atlas/parts.h"
#include "analysis/names/communication.h"
#include "analysis/names/kernel_names.h"
#include "analysis/timeline/kernel_totals.h"

namespace kscope::analysis::atlas {

namespace {

struct Tally {
  PopularityRow row;
  int64_t last_run = -1, runs = 0;
  std::map<std::string, int64_t> model_ns;
  int64_t* run_model_ns = nullptr;  // model_ns of the current run's model
};

// A kernel name of the selected runs, by its string id: what its rows add to, found once.
struct Name {
  KernelIdentity identity;
  bool communication = false;  // waits on a peer GPU (analysis/names/communication.h)
  Tally* tally = nullptr;
  std::pair<int64_t, int64_t>* family_runs = nullptr;  // the family's (last run, runs)
};

}  // namespace

namespace {

// The run's kernel summary (in the table's order, which decides the spelling kept for names
// that match alike), or its rank's (Atlas::rank).
Result<std::vector<KernelTotal>> RunTotals(store::Store& store, int64_t run_id, const std::optional<int64_t>& rank) {
  if (!rank) {
    auto q = store.db().Prepare(
        "SELECT k.name_id, s.value, k.n, k.total FROM kernel_summary k JOIN string s ON s.id = k.name_id "
        "WHERE k.run_id = ?1");
    if (!q.ok()) return q.error();
    q->Bind(1, run_id);
    std::vector<KernelTotal> rows;
    while (q->Step()) rows.push_back({q->Int(0), q->Text(1), q->Int(2), q->Int(3), 0});
    KSCOPE_RETURN_IF_ERROR(q->status());
    return rows;
  }
  auto selection = LoadRank(store, run_id, *rank);
  if (!selection.ok()) return selection.error();
  return KernelTotals(store, run_id, &*selection);
}

}  // namespace

Result<NsysFacts> AddPopularity(store::Store& store, Atlas& atlas) {
  std::unordered_map<int64_t, Name> names;  // a name's identity and rows, computed once
  NsysFacts facts;
  std::map<std::string, std::pair<int64_t, int64_t>> family_runs;
  std::map<std::string, Tally> tallies;
  std::map<std::string, int64_t> model_ns;
  for (auto& run : atlas.runs) {
    auto totals = RunTotals(store, run.id, atlas.rank);
    if (!totals.ok()) return totals.error();
    for (const KernelTotal& k : *totals) {
      const int64_t name_id = k.name_id, n = k.n, ns = k.total;
      auto it = names.find(name_id);
      if (it == names.end()) {
        const std::string& name = k.name;
        Name added{IdentifyKernel(name)};
        added.communication = CommunicationOf(added.identity).has_value();
        facts.names.emplace(KernelMatchKey(name), name);
        const std::string& key = atlas.grouping == Grouping::kFamily ? added.identity.family : name;
        Tally& t = tallies[key];
        if (t.last_run < 0) {
          t.row = {key, added.identity.family, std::string(LibraryName(added.identity.library)), 0, 0, 0, 0, {}};
        }
        added.tally = &t;
        added.family_runs = &family_runs.try_emplace(added.identity.family, -1, 0).first->second;
        it = names.emplace(name_id, std::move(added)).first;
      }
      Name& name = it->second;
      if (name.communication) facts.communication_runs.insert(run.id);
      Tally& t = *name.tally;
      if (t.last_run != run.id) {
        t.last_run = run.id;
        ++t.runs;
        t.run_model_ns = &t.model_ns[run.model];
      }
      if (name.family_runs->first != run.id) {
        name.family_runs->first = run.id;
        ++name.family_runs->second;
      }
      *t.run_model_ns += ns;
      t.row.launches += n;
      t.row.gpu_time_ns += ns;
      run.launches += n;
      run.kernel_ns += ns;
    }
    model_ns[run.model] += run.kernel_ns;
  }
  for (auto& [key, t] : tallies) {
    t.row.runs = t.runs;
    t.row.models = static_cast<int64_t>(t.model_ns.size());
    for (const auto& [model, ns] : t.model_ns) {
      const int64_t all = model_ns[model];
      t.row.share_pct[model] = all > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(all) : 0.0;
    }
    atlas.popularity.push_back(std::move(t.row));
  }
  std::stable_sort(atlas.popularity.begin(), atlas.popularity.end(),
                   [](const PopularityRow& a, const PopularityRow& b) { return a.gpu_time_ns > b.gpu_time_ns; });
  for (const auto& [family, runs] : family_runs) facts.family_runs[family] = runs.second;
  return facts;
}

}  // namespace kscope::analysis::atlas
