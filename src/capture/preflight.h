// Before a profile: the profilers' versions, the GPU and its clocks, and the facts about the
// workload's environment the manifest records (CUDA_VISIBLE_DEVICES, torch version, power mode).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/process.h"
#include "util/status.h"

namespace kscope::capture {

struct Toolchain {
  std::string nsys;  // path (or name on PATH) of each tool
  std::string ncu;
};

struct ToolVersions {
  std::string nsys, ncu;  // "2025.3.1.0"
};

struct GpuFacts {
  std::string name, driver;
  std::optional<double> sm_mhz, sm_max_mhz, mem_mhz;  // clocks when kscope started
  std::string compute_cap;                            // "9.0" (the run's SM architecture: sm_90)
  std::optional<double> power_limit_w, power_max_w;   // the power limit in force, and its maximum
  std::string persistence;                            // persistence mode: Enabled | Disabled
};

// Runs `TOOL --version` through `runner` (log under `logs_dir`); an error when the tool
// cannot run or is older than kscope supports. `need_nsys` false: only ncu is checked.
Result<ToolVersions> CheckToolVersions(ProcessRunner& runner, const Toolchain& tools, const std::string& logs_dir,
                                       bool need_nsys, bool need_ncu);

// nvidia-smi's view of GPU 0 (of those CUDA_VISIBLE_DEVICES shows). An error when it says
// there is no GPU; nullopt facts (not an error) when nvidia-smi itself is missing.
Result<std::optional<GpuFacts>> QueryGpu(ProcessRunner& runner, const std::string& logs_dir);

// The Python that runs the workload: argv[0] when it is a Python, the interpreter of its #!
// line when it is a script (torchrun, accelerate, a launcher), else python3 from PATH (a shell
// script or a binary that starts Python). `on_path` finds a program on PATH.
std::string WorkloadPython(const std::vector<std::string>& workload);

// The torch version seen by the workload's Python (WorkloadPython), if it has torch.
std::optional<std::string> TorchVersion(ProcessRunner& runner, const std::vector<std::string>& workload,
                                        const std::string& logs_dir);

// Parses one line of `nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,
// clocks.mem,compute_cap,power.limit,power.max_limit,persistence_mode --format=csv,noheader`
// (the first five fields are enough: older drivers lack compute_cap).
std::optional<GpuFacts> ParseGpuLine(std::string_view line);

nlohmann::json ToJson(const GpuFacts& g);

}  // namespace kscope::capture
