// The atlas's views, each filling its part of an Atlas whose runs and models are chosen.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <unordered_map>

#include "analysis/atlas/atlas.h"
#include "analysis/kernels/launch_figures.h"
#include "analysis/names/kernel_names.h"

namespace kscope::analysis::atlas {

// nsys's spelling of each kernel name of the selected runs, by its KernelMatchKey.
using NsysNames = std::unordered_map<std::string, std::string>;

// What the popularity view learns that the other views need: nsys's spelling of each kernel
// name, and per family how many selected runs launch it (whatever the grouping).
struct NsysFacts {
  NsysNames names;
  std::map<std::string, int64_t> family_runs;
  std::set<int64_t> communication_runs;  // the runs with a communication kernel among their names
};

// Popularity from each run's kernel_summary; also each run's kernel time and launches.
Result<NsysFacts> AddPopularity(store::Store& store, Atlas& atlas);

// Communication per model and collective kind, from the kernel events of the runs that
// AddPopularity found communication kernels in (every run's kernel_ns already summed).
Status AddCommunication(store::Store& store, const NsysFacts& facts, Atlas& atlas);

// One profiled launch of a selected run, as every ncu view of the atlas sees it: the row it
// is grouped under (its family, or with --by kernel nsys's spelling of its name where a
// selected run's nsys data has the kernel, else ncu's), its name's identity, its shape, the
// figures derived from its metrics at import (ncu_launch_figures) and its bottleneck class
// under the configured thresholds.
struct ProfiledLaunch {
  const AtlasRun& run;
  const std::string& key;
  const std::string& kernel;  // nsys's spelling where known, else ncu's
  const KernelIdentity& identity;
  size_t name_index;    // 0, 1, ... by ncu's spelling, in order of first launch: the views' row caches
  size_t kernel_index;  // 0, 1, ... by `kernel`, the same way
  size_t model_index;   // the run's model in Atlas::models (sorted)
  const StoredLaunch& launch;
  Bottleneck bottleneck;
};

// The distinct runs and models of a row's launches, which come in run order.
struct RunsAndModels {
  int64_t runs = 0;
  std::set<size_t> models;  // ProfiledLaunch::model_index: in the order of the models' names
  void Add(const ProfiledLaunch& l) {
    if (l.run.id == last_run_) return;
    last_run_ = l.run.id;
    ++runs;
    models.insert(l.model_index);
  }
  [[nodiscard]] std::vector<std::string> ModelNames(const Atlas& atlas) const {
    std::vector<std::string> names;
    for (size_t m : models) names.push_back(atlas.models[m]);
    return names;
  }

 private:
  int64_t last_run_ = -1;
};

// A view's rows by the launches' name_index: a row is looked up by its key once per name.
template <typename Row>
class RowsByName {
 public:
  Row* Find(size_t name_index) const { return name_index < rows_.size() ? rows_[name_index] : nullptr; }
  void Set(size_t name_index, Row* row) {
    if (name_index >= rows_.size()) rows_.resize(name_index + 1, nullptr);
    rows_[name_index] = row;
  }

 private:
  std::vector<Row*> rows_;
};

// Reads each selected run's stored launch figures once (setting its profiled_launches) and
// hands every launch to each of `views`, in run order and launch order: the one grouping of
// ncu launches the performance, correlates and signals views share.
Status ForEachProfiledLaunch(store::Store& store, const ClassifyThresholds& thresholds, const NsysNames& nsys_names,
                             Atlas& atlas, const std::vector<std::function<void(const ProfiledLaunch&)>>& views);

// Each ncu view: a tally fed launch by launch, then its rows put into the atlas.
class PerformanceTally {
 public:
  void Add(const ProfiledLaunch& l);
  void Finish(Atlas& atlas);

 private:
  struct Samples;
  std::map<std::string, std::shared_ptr<Samples>> samples_;
  RowsByName<Samples> by_name_;
};

class CorrelatesTally {
 public:
  explicit CorrelatesTally(const AtlasThresholds& t) : thresholds_(t) {}
  void Add(const ProfiledLaunch& l);
  void Finish(Atlas& atlas);

 private:
  struct Family;
  AtlasThresholds thresholds_;
  std::map<std::string, std::shared_ptr<Family>> families_;
  RowsByName<Family> by_name_;
};

class SignalsTally {
 public:
  explicit SignalsTally(const AtlasConfig& c) : config_(c) {}
  void Add(const ProfiledLaunch& l);
  // After the popularity view: GPU time per family, the launch-bound signal's nsys launches.
  void Finish(const NsysFacts& facts, Atlas& atlas);

 private:
  struct Family;
  AtlasConfig config_;
  std::map<std::string, std::shared_ptr<Family>> families_;
  RowsByName<Family> by_name_;
};

}  // namespace kscope::analysis::atlas
