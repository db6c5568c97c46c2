// What kscope diff compares beyond the kernel summaries: each run's NVTX stages (with the
// report's MFU) and the bottleneck classes of its profiled kernels.
#include "analysis/atlas/diff_runs_detail.h"

#include <algorithm>

#include "analysis/kernels/bottleneck.h"
#include "analysis/kernels/ncu_launches.h"
#include "analysis/names/kernel_names.h"
#include "analysis/stages/stage_mfu.h"

namespace kscope::analysis::atlas {

Result<std::map<std::string, StageFacts>> LoadStageFacts(store::Store& store, int64_t run,
                                                         const config::Config& config) {
  auto info = store.GetRun(run);
  if (!info.ok()) return info.error();
  auto nsys = LoadNsysEvents(store, run);
  if (!nsys.ok()) return nsys.error();
  auto stages = ComputeStages(store, run, &*nsys);
  if (!stages.ok()) return stages.error();
  auto rows = LoadKernelRows(store, run, &*nsys);
  if (!rows.ok()) return rows.error();
  auto model = ResolveModel(config.model);
  if (!model.ok()) return model.error();
  auto launches = LoadNcuLaunches(store, run);
  if (!launches.ok()) return launches.error();
  const auto work = GatherProfiledWork(*launches, run, *rows);
  const std::string gpu = info->manifest.gpu.value_or("");
  const std::string dtype = !config.model.dtype.empty() ? config.model.dtype : info->manifest.dtype.value_or("");
  std::map<std::string, StageFacts> out;
  for (const auto& s : *stages) {
    if (s.torch_op || s.library) continue;
    const auto steady = SteadyState(s, config.stages.warmup);
    const auto mfu = ComputeStageMfu(s, steady, *rows, work, *model, config.model, gpu, dtype);
    StageFacts f;
    f.instances = s.instances;
    f.steady = steady.steady;
    f.gpu = steady.gpu;
    f.median_gpu_ns = steady.median_gpu_ns;
    f.kernel_ns = s.kernel_ns;
    f.mfu_pct = mfu.mfu_pct;
    f.mfu_source = mfu.mfu_source;
    out[s.name] = f;
  }
  return out;
}

std::string ClassMix::Main() const {
  std::string best;
  int64_t most = 0;
  for (const auto& [name, n] : launches) {
    if (n > most) {
      best = name;
      most = n;
    }
  }
  return best;
}

int64_t ClassMix::Total() const {
  int64_t n = 0;
  for (const auto& [name, k] : launches) n += k;
  return n;
}

Result<RunClasses> LoadRunClasses(store::Store& store, int64_t run, const ClassifyThresholds& thresholds) {
  auto launches = LoadNcuLaunches(store, run);
  if (!launches.ok()) return launches.error();
  RunClasses out;
  for (const auto& l : *launches) {
    const auto id = IdentifyKernel(l.key.name);
    const auto b = Diagnose(l, thresholds).bottleneck;
    if (b == Bottleneck::kUnknown) continue;  // the metrics a class needs were not collected
    const std::string cls(BottleneckName(b));
    for (auto* mix : {&out.families[id.family], &out.kernels[l.key.name]}) {
      mix->family = id.family;
      mix->library = std::string(LibraryName(id.library));
      ++mix->launches[cls];
    }
  }
  return out;
}

}  // namespace kscope::analysis::atlas
