// The atlas's views, each filling its part of an Atlas whose runs and models are chosen.
#pragma once

#include <functional>
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
};

// Popularity from each run's kernel_summary; also each run's kernel time and launches.
Result<NsysFacts> AddPopularity(store::Store& store, Atlas& atlas);

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
  const StoredLaunch& launch;
  Bottleneck bottleneck;
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
};

}  // namespace kscope::analysis::atlas
