#include "capture/doctor.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "tools/tool_output.h"
#include "tools/tools.h"

namespace kscope::capture {

namespace fs = std::filesystem;

namespace {

std::string Looked(const std::vector<std::string>& where) {
  std::string s;
  for (size_t i = 0; i < where.size() && i < 8; ++i) s += (s.empty() ? "" : ", ") + where[i];
  if (where.size() > 8) s += ", ...";
  return s;
}

Check ToolCheck(ProcessRunner& runner, const std::string& name, const std::optional<std::string>& path,
                const std::vector<std::string>& looked, std::string_view min, const std::string& logs,
                const std::string& install) {
  Check c{name, CheckLevel::kOk, "", ""};
  if (!path) {
    c.level = CheckLevel::kFail;
    c.detail = "not found (looked in " + Looked(looked) + ")";
    c.fix = install + ", or set KSCOPE_" + (name == "nsys" ? std::string("NSYS") : std::string("NCU")) + " to its path";
    return c;
  }
  Toolchain t;
  (name == "nsys" ? t.nsys : t.ncu) = *path;
  auto v = CheckToolVersions(runner, t, logs, name == "nsys", name == "ncu");
  if (!v.ok()) {
    c.level = CheckLevel::kFail;
    c.detail = *path + ": " + v.error().what;
    c.fix = v.error().fix;
    return c;
  }
  c.detail = fmt::format("{} {} (kscope needs {} or newer)", *path, name == "nsys" ? v->nsys : v->ncu, min);
  return c;
}

Check CounterCheck(const DoctorInputs& in) {
  Check c{"GPU counters", CheckLevel::kOk, "", ""};
  std::ifstream params(in.nvidia_params);
  if (!params) {
    c.level = CheckLevel::kWarn;
    c.detail = "cannot read " + in.nvidia_params + " (no NVIDIA driver here, or a container hides it)";
    c.fix = "if ncu fails with ERR_NVGPUCTRPERM, see the fix kscope doctor gives on the GPU's host";
    return c;
  }
  std::string line;
  std::optional<int> admin_only;
  while (std::getline(params, line)) {
    if (line.rfind("RmProfilingAdminOnly:", 0) == 0) admin_only = std::stoi(line.substr(21));
  }
  if (!admin_only) {
    c.level = CheckLevel::kWarn;
    c.detail = "the driver does not say whether profiling is restricted";
    return c;
  }
  if (*admin_only == 1 && !in.root) {
    c.level = CheckLevel::kFail;
    c.detail =
        "the driver lets only administrators read GPU performance counters (RmProfilingAdminOnly: 1); "
        "ncu would fail with ERR_NVGPUCTRPERM";
    c.fix =
        "run kscope as root (or with CAP_SYS_ADMIN; containers: --cap-add SYS_ADMIN), or on the host load the "
        "driver with NVreg_RestrictProfilingToAdminUsers=0 (a file in /etc/modprobe.d, then reboot)";
    return c;
  }
  c.detail = *admin_only == 1 ? "restricted to administrators, and kscope runs as root" : "readable by every user";
  return c;
}

// nsys records /bin/true and must produce a report: its importer (QdstrmImporter) needs
// libdw.so.1 and libelf.so.1, which minimal images lack.
Check ReportCheck(ProcessRunner& runner, const std::string& nsys, const std::string& work) {
  Check c{"nsys reports", CheckLevel::kOk, "", ""};
  std::error_code ec;
  fs::create_directories(work, ec);
  const std::string base = (fs::path(work) / "doctor_probe").string();
  fs::remove(base + ".nsys-rep", ec);
  NsysOutput out;
  ProcessSpec spec;
  spec.argv = {nsys, "profile", "--trace=osrt", "--sample=none", "-o", base, "--force-overwrite=true", "true"};
  spec.log_path = (fs::path(work) / "doctor_nsys.log").string();
  spec.timeout_s = 120;
  spec.on_line = [&](std::string_view l) { out.Feed(l); };
  auto run = runner.Run(spec);
  if (!run.ok()) {
    c.level = CheckLevel::kFail;
    c.detail = run.error().what;
    return c;
  }
  if (fs::exists(base + ".nsys-rep", ec)) {
    c.detail = "nsys recorded a probe and wrote its report";
    return c;
  }
  c.level = CheckLevel::kFail;
  if (out.importer_failed) {
    c.detail = "nsys recorded a probe but could not import it into a report (" + out.errors.front() + ")";
    c.fix =
        "nsys's importer needs libdw.so.1 and libelf.so.1: install libdw1 and libelf1 (Debian/Ubuntu), or "
        "unpack them and put their folder first in LD_LIBRARY_PATH";
  } else {
    c.detail = "nsys wrote no report for a probe (" + run->Describe() + "); its output: " + spec.log_path;
    c.fix = "run the probe by hand: " + nsys + " profile --trace=osrt true";
  }
  return c;
}

}  // namespace

std::vector<Check> RunDoctor(ProcessRunner& runner, const DoctorInputs& in) {
  std::vector<Check> checks;
  std::error_code ec;
  fs::create_directories(in.work_dir, ec);
  checks.push_back(ToolCheck(runner, "nsys", in.nsys, in.nsys_looked, kMinNsysVersion, in.work_dir,
                             "install Nsight Systems (it also ships inside Nsight Compute's host folder)"));
  checks.push_back(ToolCheck(runner, "ncu", in.ncu, in.ncu_looked, kMinNcuVersion, in.work_dir,
                             "install Nsight Compute (the CUDA toolkit includes it)"));
  auto gpu = QueryGpu(runner, in.work_dir);
  if (!gpu.ok()) {
    checks.push_back({"GPU", CheckLevel::kFail, gpu.error().what, gpu.error().fix});
  } else if (!*gpu) {
    checks.push_back({"GPU", CheckLevel::kWarn, "nvidia-smi is not available, so kscope cannot see the GPU",
                      "install the NVIDIA driver's utilities, or trust the profile run to tell"});
  } else {
    const auto& g = **gpu;
    std::string clocks = g.sm_mhz ? fmt::format(", SM clock {:.0f} MHz", *g.sm_mhz) : "";
    if (g.sm_max_mhz) clocks += fmt::format(" (max {:.0f})", *g.sm_max_mhz);
    checks.push_back({"GPU", CheckLevel::kOk, g.name + ", driver " + g.driver + clocks, ""});
  }
  checks.push_back(CounterCheck(in));
  if (in.nsys && checks.front().level == CheckLevel::kOk) checks.push_back(ReportCheck(runner, *in.nsys, in.work_dir));
  return checks;
}

std::string FormatChecks(const std::vector<Check>& checks) {
  std::string out;
  for (const auto& c : checks) {
    const char* tag = c.level == CheckLevel::kOk ? "ok  " : c.level == CheckLevel::kWarn ? "warn" : "FAIL";
    out += fmt::format("{} {}: {}\n", tag, c.name, c.detail);
    if (!c.fix.empty()) out += fmt::format("     fix: {}\n", c.fix);
  }
  return out;
}

}  // namespace kscope::capture
