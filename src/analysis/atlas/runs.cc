// Choosing the atlas's runs and naming the model of each.
#include <algorithm>

#include "analysis/atlas/atlas.h"

namespace kscope::analysis::atlas {

namespace {

bool Matches(const store::RunInfo& run, const RunFilter& f) {
  const auto& m = run.manifest;
  if (!f.run_ids.empty() && std::find(f.run_ids.begin(), f.run_ids.end(), run.id) == f.run_ids.end()) return false;
  if (f.label && m.label != f.label) return false;
  if (f.model && m.model != f.model) return false;
  if (f.gpu && m.gpu != f.gpu) return false;
  for (const auto& [k, v] : f.tags) {
    auto it = m.tags.find(k);
    if (it == m.tags.end() || it->second != v) return false;
  }
  return true;
}

}  // namespace

Result<std::vector<AtlasRun>> SelectRuns(store::Store& store, const RunFilter& filter) {
  auto runs = store.ListRuns();
  if (!runs.ok()) return runs.error();
  for (int64_t id : filter.run_ids) {
    if (std::none_of(runs->begin(), runs->end(), [id](const store::RunInfo& r) { return r.id == id; })) {
      return Error{"run " + std::to_string(id), "is not in the database", "list the runs with: kscope runs"};
    }
  }
  std::vector<AtlasRun> out;
  for (const auto& r : *runs) {
    if (!Matches(r, filter)) continue;
    AtlasRun a;
    a.id = r.id;
    a.model = r.manifest.model.value_or(r.manifest.label.value_or("run " + std::to_string(r.id)));
    out.push_back(std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const AtlasRun& a, const AtlasRun& b) { return a.id < b.id; });
  if (out.empty()) {
    return Error{"atlas", "no run matches the selection", "list the runs and their manifests with: kscope runs",
                 ErrorKind::kNoMatchingRun};
  }
  return out;
}

}  // namespace kscope::analysis::atlas
