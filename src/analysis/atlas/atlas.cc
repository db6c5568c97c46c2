#include "analysis/atlas/atlas.h"

#include <set>

#include "analysis/atlas/parts.h"

namespace kscope::analysis::atlas {

Result<Atlas> BuildAtlas(store::Store& store, const RunFilter& filter, Grouping grouping,
                         const ClassifyThresholds& thresholds) {
  auto runs = SelectRuns(store, filter);
  if (!runs.ok()) return runs.error();
  Atlas atlas;
  atlas.grouping = grouping;
  atlas.runs = std::move(runs).value();
  std::set<std::string> models;
  for (const auto& r : atlas.runs) models.insert(r.model);
  atlas.models.assign(models.begin(), models.end());
  auto nsys_names = AddPopularity(store, atlas);
  if (!nsys_names.ok()) return nsys_names.error();
  KSCOPE_RETURN_IF_ERROR(AddPerformance(store, thresholds, *nsys_names, atlas));
  return atlas;
}

}  // namespace kscope::analysis::atlas
