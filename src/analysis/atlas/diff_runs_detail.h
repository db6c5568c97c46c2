// kscope diff's per-stage and per-class comparison (diff.h): what each run says of its NVTX
// stages (GPU time per instance with its spread, MFU) and of the bottleneck classes of its
// profiled kernels, to be set side by side.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stages/stage_steady.h"
#include "config/config.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis::atlas {

// One NVTX stage of a run (PyTorch's operator ranges and libraries' own ranges left out).
struct StageFacts {
  int64_t instances = 0, steady = 0;  // steady: after stages.warmup
  InstanceSpread gpu;                 // GPU time launched inside each instance (all instances)
  double median_gpu_ns = 0;           // the steady instances' median GPU time
  int64_t kernel_ns = 0;              // kernel time over all instances
  std::optional<double> mfu_pct;      // as kscope report computes it (measured by ncu, else modelled)
  std::string mfu_source;             // "ncu" or "model"
};

// By stage name ("domain:text", ":decode" in the default domain).
Result<std::map<std::string, StageFacts>> LoadStageFacts(store::Store& store, int64_t run,
                                                         const config::Config& config);

// The bottleneck classes of a run's profiled launches, per family and per kernel (ncu's name);
// launches without the metrics a class needs (class unknown) are left out.
struct ClassMix {
  std::string family, library;
  std::map<std::string, int64_t> launches;  // class name -> launches
  [[nodiscard]] std::string Main() const;   // the class with most launches (ties: by name)
  [[nodiscard]] int64_t Total() const;
};
struct RunClasses {
  std::map<std::string, ClassMix> families, kernels;
};
Result<RunClasses> LoadRunClasses(store::Store& store, int64_t run, const ClassifyThresholds& thresholds);

}  // namespace kscope::analysis::atlas
