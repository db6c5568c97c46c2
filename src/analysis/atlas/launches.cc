// The one pass over the selected runs' profiled launches that every ncu view of the atlas
// shares: each launch keyed, named and diagnosed once.
#include <unordered_map>

#include "analysis/atlas/parts.h"
#include "analysis/kernels/ncu_launches.h"

namespace kscope::analysis::atlas {

Status ForEachProfiledLaunch(store::Store& store, const ClassifyThresholds& thresholds, const NsysNames& nsys_names,
                             Atlas& atlas, const std::vector<std::function<void(const ProfiledLaunch&)>>& views) {
  struct Name {
    KernelIdentity identity;
    std::string kernel;  // nsys's spelling where known
  };
  std::unordered_map<std::string, Name> names;  // by ncu's spelling, computed once
  for (auto& run : atlas.runs) {
    auto launches = LoadNcuLaunches(store, run.id);
    if (!launches.ok()) return launches.error();
    run.profiled_launches = static_cast<int64_t>(launches->size());
    for (const auto& l : *launches) {
      auto it = names.find(l.key.name);
      if (it == names.end()) {
        auto nsys = nsys_names.find(KernelMatchKey(l.key.name));
        it = names
                 .emplace(l.key.name,
                          Name{IdentifyKernel(l.key.name), nsys != nsys_names.end() ? nsys->second : l.key.name})
                 .first;
      }
      const auto& name = it->second;
      const std::string& key = atlas.grouping == Grouping::kKernel ? name.kernel : name.identity.family;
      const Diagnosis d = Diagnose(l, thresholds);
      const Roofline roofline = ComputeRoofline(l);
      const ProfiledLaunch p{run, key, name.kernel, name.identity, l, d, roofline, MainPoint(roofline)};
      for (const auto& view : views) view(p);
    }
  }
  return Status::Ok();
}

}  // namespace kscope::analysis::atlas
