// The state one kscope profile run hands from step to step (ProfileSession's steps in
// profile.cc, profile_discovery.cc and profile_deep_pass.cc): what the checks before it found,
// then its directory, manifest and steps.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "capture/preflight.h"
#include "capture/profile.h"
#include "capture/run_dir.h"
#include "capture/selection.h"
#include "tools/process.h"
#include "util/status.h"

namespace kscope::capture {

// What the checks that need no run found: the tools' versions, the GPU, the metrics ncu offers.
struct Preflight {
  const ToolVersions* versions = nullptr;
  std::optional<GpuFacts> gpu;
  std::vector<std::string> metrics;  // those asked for that this ncu offers on this GPU
  std::string metric_note;           // the FLOP metrics it lacks, left out; "" when none
  std::optional<Selection> early;    // with a discovery run given: the selection, made before the run
};

// One profile run: its directory, its manifest and the steps taken.
struct Capture {  // NOLINT(bugprone-exception-escape): its implicit constructor allocates nothing
  int64_t run_id = 0;
  RunDir dir;
  nlohmann::json manifest;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  std::vector<std::string> workload;                // its {kscope.run_dir} replaced
  std::map<std::string, std::string> workload_env;  // KSCOPE_RUN_DIR
  ProfileResult result;

  // Steps are addressed by index: a reference into the array would dangle when it grows.
  size_t Step(const std::string& name, const std::vector<std::string>& argv, const std::string& log) {
    manifest["steps"].push_back(
        {{"name", name}, {"argv", argv}, {"log", std::filesystem::relative(log, dir.root).string()}});
    return manifest["steps"].size() - 1;
  }
  nlohmann::json& At(size_t step) { return manifest["steps"][step]; }
  void Record(size_t index, const ProcessOutcome& o) {
    nlohmann::json& step = At(index);
    step["exit_code"] = o.exit_code;
    if (o.signal != 0) step["signal"] = o.signal;
    if (o.timed_out) step["timed_out"] = true;
    if (o.interrupted) step["interrupted"] = true;
    step["seconds"] = std::round(o.seconds * 1000) / 1000;
  }
  [[nodiscard]] Error InterruptedDuring(const std::string& during) const;
  // A note in the manifest and on kscope's output.
  void Note(const std::string& note, std::ostream& out);
};

// `e` with where the program's output is added to its fix.
Error LogHint(Error e, const std::string& log);

// The environment the request sets for the workload's `run`-th run (wrapper mode; else none).
std::map<std::string, std::string> RunEnv(const ProfileRequest& req, int64_t run);

}  // namespace kscope::capture
