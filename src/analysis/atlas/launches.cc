// The one pass over the selected runs' profiled launches that every ncu view of the atlas
// shares: each launch's stored figures read, keyed, named and classified once.
#include <algorithm>
#include <unordered_map>

#include "analysis/atlas/parts.h"
#include "analysis/timeline/rank_selection.h"
#include "analysis/timeline/ranks.h"

namespace kscope::analysis::atlas {

namespace {

// The GPU of the run's rank `rank` (of the discovery run its launches are linked to, where it
// holds ncu data only); none without a rank.
Result<std::optional<int64_t>> RankDevice(store::Store& store, int64_t run_id, const std::optional<int64_t>& rank) {
  if (!rank) return std::optional<int64_t>();
  int64_t timeline_run = run_id;
  auto q = store.db().Prepare(
      "SELECT kernel_run FROM ncu_launch WHERE run_id = ?1 AND kernel_run IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
      "run_rank WHERE run_id = ?1) LIMIT 1");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  if (q->Step()) timeline_run = q->Int(0);
  KSCOPE_RETURN_IF_ERROR(q->status());
  auto ranks = ReadRanks(store, timeline_run);
  if (!ranks.ok()) return ranks.error();
  auto found = FindRank(*ranks, *rank, run_id);
  if (!found.ok()) return found.error();
  return std::optional<int64_t>(found->device);
}

}  // namespace

Status ForEachProfiledLaunch(store::Store& store, const ClassifyThresholds& thresholds, const NsysNames& nsys_names,
                             Atlas& atlas, const std::vector<std::function<void(const ProfiledLaunch&)>>& views) {
  struct Name {
    KernelIdentity identity;
    std::string kernel;  // nsys's spelling where known
    size_t index = 0, kernel_index = 0;
  };
  std::unordered_map<int64_t, Name> names;          // by the string id of ncu's spelling, computed once
  std::unordered_map<std::string, size_t> kernels;  // Name::kernel_index by Name::kernel
  auto reader = StoredLaunchReader::Open(store);
  if (!reader.ok()) return reader.error();
  auto name_of = store.db().Prepare("SELECT value FROM string WHERE id = ?1");
  if (!name_of.ok()) return name_of.error();
  Status failed = Status::Ok();
  for (auto& run : atlas.runs) {
    int64_t launches = 0;
    auto device = RankDevice(store, run.id, atlas.rank);
    if (!device.ok()) return device.error();
    const auto model_index = static_cast<size_t>(std::lower_bound(atlas.models.begin(), atlas.models.end(), run.model) -
                                                 atlas.models.begin());
    KSCOPE_RETURN_IF_ERROR(reader->ForEach(run.id, [&](const StoredLaunch& l) {
      if (*device && l.device != *device) return;  // another rank's GPU
      ++launches;
      auto it = names.find(l.name_id);
      if (it == names.end()) {
        name_of->Reset();
        name_of->Bind(1, l.name_id);
        const std::string ncu_name = name_of->Step() ? name_of->Text(0) : std::string();
        if (!name_of->status().ok() && failed.ok()) failed = name_of->status();
        auto nsys = nsys_names.find(KernelMatchKey(ncu_name));
        Name added{IdentifyKernel(ncu_name), nsys != nsys_names.end() ? nsys->second : ncu_name, names.size()};
        added.kernel_index = kernels.try_emplace(added.kernel, kernels.size()).first->second;
        it = names.emplace(l.name_id, std::move(added)).first;
      }
      const auto& name = it->second;
      const std::string& key = atlas.grouping == Grouping::kKernel ? name.kernel : name.identity.family;
      const ProfiledLaunch p{run,           key,        name.kernel,
                             name.identity, name.index, name.kernel_index,
                             model_index,   l,          Classify(l.figures.class_figures, thresholds)};
      for (const auto& view : views) view(p);
    }));
    if (!failed.ok()) return failed.error();
    run.profiled_launches = launches;
  }
  return Status::Ok();
}

}  // namespace kscope::analysis::atlas
