#include "analysis/kernels/launch_figures_builder.h"

namespace kscope::analysis {

LaunchFiguresBuilder::LaunchFiguresBuilder() : worker_([this] { Work(); }) {}

LaunchFiguresBuilder::~LaunchFiguresBuilder() { Stop(); }

void LaunchFiguresBuilder::Stop() {
  {
    const std::lock_guard lock(mu_);
    done_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void LaunchFiguresBuilder::Add(int64_t launch_id, std::vector<Metric> metrics) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] { return queue_.size() < kMaxQueued; });
  queue_.emplace_back(launch_id, std::move(metrics));
  lock.unlock();
  changed_.notify_all();
}

DerivedLaunchFigures LaunchFiguresBuilder::Finish() {
  Stop();
  return std::move(figures_);
}

void LaunchFiguresBuilder::Work() {
  for (;;) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [this] { return done_ || !queue_.empty(); });
    if (queue_.empty()) return;  // done, and nothing left
    auto [id, metrics] = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    changed_.notify_all();
    // The launch as LoadNcuLaunches would read it back from the store: the metrics are all
    // FiguresOf looks at.
    NcuLaunch launch;
    launch.id = id;
    launch.metrics.reserve(metrics.size());
    for (Metric& m : metrics) {
      NcuValue v;
      v.number = m.value;
      if (!m.value) v.text = std::move(m.text);
      v.unit = std::string(m.unit);
      launch.metrics.insert_or_assign(std::string(m.name), std::move(v));
    }
    LaunchFigures f = FiguresOf(launch);
    lock.lock();
    figures_.emplace_back(id, std::move(f));
  }
}

}  // namespace kscope::analysis
