// Popularity: launches and GPU time per family (or kernel) over the selected runs, from the
// kernel_summary of each (nsys's cuda_gpu_kern_sum), and its share of each model's GPU time.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "analysis/atlas/parts.h"
#include "analysis/names/kernel_names.h"

namespace kscope::analysis::atlas {

namespace {

struct Tally {
  PopularityRow row;
  std::set<int64_t> runs;
  std::map<std::string, int64_t> model_ns;
};

}  // namespace

Result<NsysFacts> AddPopularity(store::Store& store, Atlas& atlas) {
  auto q = store.db().Prepare(
      "SELECT s.value, k.n, k.total FROM kernel_summary k JOIN string s ON s.id = k.name_id WHERE k.run_id = ?1");
  if (!q.ok()) return q.error();
  std::unordered_map<std::string, KernelIdentity> names;  // a name's identity, computed once
  NsysFacts facts;
  std::map<std::string, std::set<int64_t>> family_runs;
  std::map<std::string, Tally> tallies;
  std::map<std::string, int64_t> model_ns;
  for (auto& run : atlas.runs) {
    q->Reset();
    q->Bind(1, run.id);
    while (q->Step()) {
      const std::string name = q->Text(0);
      const int64_t n = q->Int(1), ns = q->Int(2);
      auto it = names.find(name);
      if (it == names.end()) {
        it = names.emplace(name, IdentifyKernel(name)).first;
        facts.names.emplace(KernelMatchKey(name), name);
      }
      const auto& id = it->second;
      const std::string& key = atlas.grouping == Grouping::kFamily ? id.family : name;
      auto& t = tallies[key];
      if (t.runs.empty()) t.row = {key, id.family, std::string(LibraryName(id.library)), 0, 0, 0, 0, {}};
      t.runs.insert(run.id);
      family_runs[id.family].insert(run.id);
      t.model_ns[run.model] += ns;
      t.row.launches += n;
      t.row.gpu_time_ns += ns;
      run.launches += n;
      run.kernel_ns += ns;
    }
    KSCOPE_RETURN_IF_ERROR(q->status());
    model_ns[run.model] += run.kernel_ns;
  }
  for (auto& [key, t] : tallies) {
    t.row.runs = static_cast<int64_t>(t.runs.size());
    t.row.models = static_cast<int64_t>(t.model_ns.size());
    for (const auto& [model, ns] : t.model_ns) {
      const int64_t all = model_ns[model];
      t.row.share_pct[model] = all > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(all) : 0.0;
    }
    atlas.popularity.push_back(std::move(t.row));
  }
  std::stable_sort(atlas.popularity.begin(), atlas.popularity.end(),
                   [](const PopularityRow& a, const PopularityRow& b) { return a.gpu_time_ns > b.gpu_time_ns; });
  for (const auto& [family, runs] : family_runs) facts.family_runs[family] = static_cast<int64_t>(runs.size());
  return facts;
}

}  // namespace kscope::analysis::atlas
