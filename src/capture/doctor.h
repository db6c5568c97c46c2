// kscope doctor: can this machine profile? Finds nsys and ncu, prints their versions,
// checks that the GPU's performance counters are readable (ERR_NVGPUCTRPERM) and that nsys
// can turn a recording into a report (its importer needs libdw/libelf), and says how to fix
// each problem.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "capture/preflight.h"
#include "tools/process.h"

namespace kscope::capture {

enum class CheckLevel { kOk, kWarn, kFail };

struct Check {
  std::string name;  // "nsys", "ncu", "GPU", "GPU counters", "nsys reports"
  CheckLevel level = CheckLevel::kOk;
  std::string detail;  // what was found
  std::string fix;     // what to do (empty when ok)
};

struct DoctorInputs {
  std::optional<std::string> nsys, ncu;              // found tools (FindNsys / FindNcu)
  std::vector<std::string> nsys_looked, ncu_looked;  // where kscope looked
  std::string nvidia_params = "/proc/driver/nvidia/params";
  bool root = false;     // effective uid 0
  std::string work_dir;  // scratch space for the nsys probe
};

std::vector<Check> RunDoctor(ProcessRunner& runner, const DoctorInputs& in);

// One line per check: "ok   nsys: ..." / "FAIL GPU counters: ...; fix: ...".
std::string FormatChecks(const std::vector<Check>& checks);

}  // namespace kscope::capture
