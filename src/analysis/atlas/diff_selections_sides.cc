#include "analysis/atlas/diff_selections_sides.h"

#include <algorithm>
#include <set>

namespace kscope::analysis::atlas {

namespace {

void AddClasses(const RunClasses& from, RunClasses& into) {
  auto add = [](const std::map<std::string, ClassMix>& x, std::map<std::string, ClassMix>& y) {
    for (const auto& [key, mix] : x) {
      auto& to = y[key];
      to.family = mix.family;
      to.library = mix.library;
      for (const auto& [cls, n] : mix.launches) to.launches[cls] += n;
    }
  };
  add(from.families, into.families);
  add(from.kernels, into.kernels);
}

}  // namespace

Result<std::vector<int64_t>> SelectSide(store::Store& store, const RunFilter& filter, const std::string& text) {
  auto all = store.ListRuns();
  if (!all.ok()) return all.error();
  for (const auto& tag : filter.tags) {
    const std::string& key = tag.first;
    if (std::none_of(all->begin(), all->end(),
                     [&key](const store::RunInfo& r) { return r.manifest.tags.contains(key); })) {
      return Error{"selection " + text, "no run of the database has the tag '" + key + "'",
                   "list the runs and their tags with: kscope runs"};
    }
  }
  auto runs = SelectRuns(store, filter);
  if (!runs.ok()) {
    if (runs.error().kind != ErrorKind::kNoMatchingRun) return runs.error();  // a run id not in the database
    return Error{"selection " + text, "matches no run", "list the runs and their manifests with: kscope runs"};
  }
  std::vector<int64_t> ids;
  for (const auto& r : *runs) ids.push_back(r.id);
  return ids;
}

Result<SelectionSide> LoadSide(store::Store& store, const std::vector<int64_t>& runs, const AnalysisOptions& config,
                               std::optional<int64_t> rank) {
  SelectionSide side;
  for (int64_t id : runs) {
    auto info = store.GetRun(id);
    if (!info.ok()) return info.error();
    auto kernels = LoadRunKernels(store, id, rank);
    if (!kernels.ok()) return kernels.error();
    auto stages = LoadStageFacts(store, id, config, rank);
    if (!stages.ok()) return stages.error();
    auto classes = LoadRunClasses(store, id, config.classify);
    if (!classes.ok()) return classes.error();
    side.runs.push_back(id);
    auto fields = LoadComparedFields(store, id);
    if (!fields.ok()) return fields.error();
    fields->emplace_back("model", info->manifest.model);
    side.fields.push_back(std::move(*fields));
    side.kernels.push_back(std::move(*kernels));
    side.stages.push_back(std::move(*stages));
    AddClasses(*classes, side.classes);
  }
  return side;
}

DiffSideFacts FactsOf(const SelectionSide& side) {
  std::set<std::string> stages;
  for (const auto& run : side.stages) {
    for (const auto& [name, facts] : run) stages.insert(name);
  }
  return {.stages = static_cast<int64_t>(stages.size()),
          .profiled_families = static_cast<int64_t>(side.classes.families.size()),
          .profiled_kernels = static_cast<int64_t>(side.classes.kernels.size())};
}

FieldValues ValuesOfFields(const std::vector<ComparedValues>& fields) {
  FieldValues out;
  if (fields.empty()) return out;
  for (size_t i = 0; i < fields.front().size(); ++i) {
    std::set<std::string> seen;
    for (const auto& run : fields) {
      if (run[i].second) seen.insert(*run[i].second);
    }
    out.emplace_back(fields.front()[i].first, std::vector<std::string>(seen.begin(), seen.end()));
  }
  return out;
}

}  // namespace kscope::analysis::atlas
