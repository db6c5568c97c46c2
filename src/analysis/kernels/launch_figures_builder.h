// Launches' figures (FiguresOf) derived while an import writes their metrics, on a thread of
// its own: the import then need not read tens of thousands of metric rows back from the store
// to derive them (a fifth of a large .ncu-rep's import), and the derivation runs beside the
// writing instead of after it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "analysis/kernels/launch_figures.h"
#include "analysis/kernels/ncu_launches.h"

namespace kscope::analysis {

class LaunchFiguresBuilder {
 public:
  // One metric row as the store receives it; the views must outlive Finish().
  struct Metric {
    std::string_view name;
    std::optional<double> value;  // in `unit`
    std::string text;             // when there is no value
    std::string_view unit;
  };
  LaunchFiguresBuilder();
  ~LaunchFiguresBuilder();
  LaunchFiguresBuilder(const LaunchFiguresBuilder&) = delete;
  LaunchFiguresBuilder& operator=(const LaunchFiguresBuilder&) = delete;

  // Queues one launch's metrics (a later row of one name replaces an earlier one, as the
  // store's upsert does); waits while kMaxQueued launches are queued, so memory stays bounded.
  void Add(int64_t launch_id, std::vector<Metric> metrics);
  // Every added launch's figures, in the order added.
  DerivedLaunchFigures Finish();

 private:
  static constexpr size_t kMaxQueued = 8;
  void Work();
  void Stop();  // lets the worker finish what is queued, and joins it

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::pair<int64_t, std::vector<Metric>>> queue_;
  bool done_ = false;
  DerivedLaunchFigures figures_;
  std::thread worker_;
};

}  // namespace kscope::analysis
