// The synchronization finding, specified on built timelines (no capture): it names the host's
// synchronizing calls only where the GPU then runs dry, idle until the host queues new work.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/timeline/timeline.h"
#include "analysis/timeline/timeline_events.h"

namespace kscope {
namespace {

constexpr int64_t us = 1000;

// A timeline of kernels and CUDA calls: function 0 launches, 1 synchronizes.
struct Built {
  analysis::TimelineEvents e;
  Built() { e.functions = {{"cudaLaunchKernel", false}, {"cudaStreamSynchronize", true}}; }
  void Kernel(int64_t start, int64_t end) {
    e.kernels.start.push_back(start);
    e.kernels.end.push_back(end);
  }
  void Call(uint32_t function, int64_t start, int64_t end) {
    e.api.start.push_back(start);
    e.api.end.push_back(end);
    e.api.function.push_back(function);
  }
  analysis::TimelineDiagnosis Diagnose() {
    std::vector<analysis::TimeWindow> gpu, api, sync;
    for (size_t i = 0; i < e.kernels.start.size(); ++i) gpu.push_back({e.kernels.start[i], e.kernels.end[i]});
    for (size_t i = 0; i < e.api.start.size(); ++i) {
      api.push_back({e.api.start[i], e.api.end[i]});
      if (e.functions[e.api.function[i]].synchronizes) sync.push_back({e.api.start[i], e.api.end[i]});
    }
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const auto* set : {&gpu, &api}) {
      for (const auto& w : *set) {
        first = std::min(first, w.start);
        last = std::max(last, w.end);
      }
    }
    e.gpu_busy = analysis::MergeIntervals(gpu);
    e.api_busy = analysis::MergeIntervals(api);
    e.sync_busy = analysis::MergeIntervals(sync);
    e.span = {first, last};
    return analysis::DiagnoseTimeline(e, {}, analysis::TimelineThresholds{});
  }
};

const analysis::Finding* FindingOf(const analysis::TimelineDiagnosis& d, const std::string& kind) {
  for (const auto& f : d.findings) {
    if (f.kind == kind) return &f;
  }
  return nullptr;
}

// Each step: a launch, 200 us of kernel, the host waiting for it (a .item()), then 500 us of
// Python before the next launch: the GPU idles 510 us after every synchronization.
TEST(TimelineSyncSpec, ASyncPerStepThatLeavesTheGpuIdleIsAFinding) {
  Built b;
  for (int64_t step = 0, t = 0; step < 10; ++step, t += 710 * us) {
    b.Call(0, t, t + 5 * us);
    b.Kernel(t + 10 * us, t + 210 * us);
    b.Call(1, t + 5 * us, t + 212 * us);
  }
  const auto d = b.Diagnose();
  EXPECT_EQ(d.idle_after_sync_ns, 9 * 510 * us);  // kernel end to the next kernel start; the last ends the run
  const analysis::Finding* f = FindingOf(d, "synchronization");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->detail.find("of idle gaps of 100.0 us or more start while one is under way"), std::string::npos)
      << f->detail;
}

// The host queues ten steps, then waits once while the GPU works through them back to back:
// it waits nearly the whole run, and the GPU never idles for it.
TEST(TimelineSyncSpec, AHostWaitingOnAFullQueueIsNoFinding) {
  Built b;
  for (int64_t step = 0; step < 10; ++step) {
    b.Call(0, step * 6 * us, step * 6 * us + 5 * us);
    b.Kernel(10 * us + step * 200 * us, 10 * us + (step + 1) * 200 * us);
  }
  b.Call(1, 60 * us, 2012 * us);
  const auto d = b.Diagnose();
  EXPECT_GT(d.sync_ns, d.wall_ns * 9 / 10);
  EXPECT_EQ(d.idle_after_sync_ns, 0);
  EXPECT_EQ(FindingOf(d, "synchronization"), nullptr);
}

// A sync per step after which the host launches the next step within 20 us: the GPU's idle
// after each is a launch gap, shorter than the finding's minimum gap; no finding.
TEST(TimelineSyncSpec, ASyncFollowedAtOnceByTheNextLaunchIsNoFinding) {
  Built b;
  for (int64_t step = 0, t = 0; step < 10; ++step, t += 230 * us) {
    b.Call(0, t, t + 5 * us);
    b.Kernel(t + 10 * us, t + 210 * us);
    b.Call(1, t + 5 * us, t + 212 * us);
  }
  const auto d = b.Diagnose();
  EXPECT_GT(d.sync_ns, d.wall_ns / 2);
  EXPECT_EQ(d.idle_after_sync_ns, 0);
  EXPECT_EQ(FindingOf(d, "synchronization"), nullptr);
}

}  // namespace
}  // namespace kscope
