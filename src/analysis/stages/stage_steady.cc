#include "analysis/stages/stage_steady.h"

#include <algorithm>
#include <map>

#include "analysis/timeline/duration_stats.h"

namespace kscope::analysis {

namespace {

double Median(std::vector<int64_t> v) { return ComputeStats(v).median; }

InstanceSpread Spread(const std::vector<int64_t>& v) {
  if (v.empty()) return {};
  std::vector<int64_t> copy = v;
  const DurationStats stats = ComputeStats(copy);
  return {v.front(), stats.min, stats.max, stats.median};
}

// Per instance: 1 when it is among its process's first `warmup` instances and that process
// has more than `warmup` of them.
std::vector<char> WarmupPerProcess(const std::vector<StageInstance>& instances, int64_t warmup, int64_t& processes) {
  std::map<int64_t, int64_t> count, seen;
  for (const auto& in : instances) ++count[in.global_pid];
  processes = static_cast<int64_t>(count.size());
  std::vector<char> warm(instances.size(), 0);
  for (size_t i = 0; i < instances.size(); ++i) {
    const int64_t pid = instances[i].global_pid;
    const int64_t place = seen[pid]++;
    warm[i] = warmup > 0 && warmup < count[pid] && place < warmup ? 1 : 0;
  }
  return warm;
}

}  // namespace

StageSteady SteadyState(const Stage& stage, int64_t warmup) {
  StageSteady s;
  const auto n = static_cast<int64_t>(stage.instance_list.size());
  const std::vector<char> warm = WarmupPerProcess(stage.instance_list, warmup, s.ranks);
  s.warmup = std::count(warm.begin(), warm.end(), 1);
  s.steady = n - s.warmup;
  std::vector<int64_t> range, gpu, wall, steady_wall, steady_gpu;
  s.counted.assign(stage.instance_list.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    const StageInstance& in = stage.instance_list[static_cast<size_t>(i)];
    range.push_back(in.range_ns);
    gpu.push_back(in.kernel_ns + in.memop_ns);
    wall.push_back(in.wall_ns());
    if (warm[static_cast<size_t>(i)] != 0) continue;
    s.counted[static_cast<size_t>(i)] = 1;
    s.wall_ns += in.wall_ns();
    s.gpu_ns += in.kernel_ns + in.memop_ns;
    s.kernel_ns += in.kernel_ns;
    s.ops += in.ops;
    steady_wall.push_back(in.wall_ns());
    steady_gpu.push_back(in.kernel_ns + in.memop_ns);
    s.windows.push_back({in.start, in.end});
  }
  s.range = Spread(range);
  s.gpu = Spread(gpu);
  s.wall = Spread(wall);
  s.median_wall_ns = Median(steady_wall);
  s.median_gpu_ns = Median(steady_gpu);
  return s;
}

}  // namespace kscope::analysis
