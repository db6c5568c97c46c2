#include "analysis/atlas/atlas.h"

#include <set>

#include "analysis/atlas/parts.h"

namespace kscope::analysis::atlas {

Result<Atlas> BuildAtlas(store::Store& store, const RunFilter& filter, Grouping grouping, const AtlasConfig& config) {
  auto runs = SelectRuns(store, filter);
  if (!runs.ok()) return runs.error();
  Atlas atlas;
  atlas.grouping = grouping;
  atlas.rank = filter.rank;
  atlas.runs = std::move(runs).value();
  std::set<std::string> models;
  for (const auto& r : atlas.runs) models.insert(r.model);
  atlas.models.assign(models.begin(), models.end());
  auto nsys = AddPopularity(store, atlas);
  if (!nsys.ok()) return nsys.error();
  PerformanceTally performance;
  CorrelatesTally correlates(config.atlas);
  SignalsTally signals(config);
  KSCOPE_RETURN_IF_ERROR(ForEachProfiledLaunch(
      store, config.classify, nsys->names, atlas,
      {[&](const ProfiledLaunch& l) { performance.Add(l); }, [&](const ProfiledLaunch& l) { correlates.Add(l); },
       [&](const ProfiledLaunch& l) { signals.Add(l); }}));
  KSCOPE_RETURN_IF_ERROR(AddCommunication(store, *nsys, atlas));
  performance.Finish(atlas);
  correlates.Finish(atlas);
  signals.Finish(*nsys, atlas);
  return atlas;
}

}  // namespace kscope::analysis::atlas
