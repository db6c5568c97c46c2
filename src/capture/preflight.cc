#include "capture/preflight.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/tools.h"

namespace kscope::capture {

namespace fs = std::filesystem;

namespace {

// Runs argv, collecting its output lines; the log goes to logs_dir/name.log.
struct Captured {
  ProcessOutcome outcome;
  std::vector<std::string> lines;
};
Result<Captured> Capture(ProcessRunner& runner, std::vector<std::string> argv, const std::string& logs_dir,
                         const std::string& name, double timeout_s) {
  Captured c;
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.log_path = (fs::path(logs_dir) / (name + ".log")).string();
  spec.timeout_s = timeout_s;
  spec.on_line = [&c](std::string_view l) { c.lines.emplace_back(l); };
  auto out = runner.Run(spec);
  if (!out.ok()) return out.error();
  c.outcome = *out;
  return c;
}

std::optional<double> Mhz(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  try {
    size_t used = 0;
    const double v = std::stod(std::string(s), &used);
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Result<std::string> Version(ProcessRunner& runner, const std::string& tool, const std::string& logs_dir,
                            const std::string& name, std::string_view min) {
  auto c = Capture(runner, {tool, "--version"}, logs_dir, name + "_version", 60);
  if (!c.ok()) {
    return Error{tool, "cannot run " + name + ": " + c.error().what,
                 "install Nsight " + std::string(name == "nsys" ? "Systems" : "Compute") + " or point KSCOPE_" +
                     (name == "nsys" ? std::string("NSYS") : std::string("NCU")) +
                     " at it (kscope doctor shows where kscope looks)"};
  }
  std::optional<std::string> v;
  for (const auto& l : c->lines) {
    if (!v) v = ParseToolVersion(l);
  }
  if (!c->outcome.ok() || !v) {
    return Error{tool, fmt::format("'{} --version' failed ({}) or printed no version", name, c->outcome.Describe()),
                 "run kscope doctor"};
  }
  if (CompareVersions(*v, min) < 0) {
    return Error{tool, fmt::format("{} {} is older than {}, the oldest kscope drives", name, *v, min),
                 "install a newer Nsight " + std::string(name == "nsys" ? "Systems" : "Compute")};
  }
  return *v;
}

}  // namespace

Result<ToolVersions> CheckToolVersions(ProcessRunner& runner, const Toolchain& tools, const std::string& logs_dir,
                                       bool need_nsys, bool need_ncu) {
  ToolVersions v;
  if (need_nsys) {
    auto n = Version(runner, tools.nsys, logs_dir, "nsys", kMinNsysVersion);
    if (!n.ok()) return n.error();
    v.nsys = *n;
  }
  if (need_ncu) {
    auto n = Version(runner, tools.ncu, logs_dir, "ncu", kMinNcuVersion);
    if (!n.ok()) return n.error();
    v.ncu = *n;
  }
  return v;
}

std::optional<GpuFacts> ParseGpuLine(std::string_view line) {
  std::vector<std::string> f;
  std::stringstream ss{std::string(line)};
  std::string cell;
  while (std::getline(ss, cell, ',')) {
    while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
    f.push_back(cell);
  }
  if (f.size() < 2 || f[0].empty()) return std::nullopt;
  GpuFacts g;
  g.name = f[0];
  g.driver = f[1];
  if (f.size() > 2) g.sm_mhz = Mhz(f[2]);
  if (f.size() > 3) g.sm_max_mhz = Mhz(f[3]);
  if (f.size() > 4) g.mem_mhz = Mhz(f[4]);
  auto given = [](const std::string& v) { return !v.empty() && v != "[N/A]" && v != "N/A" && v[0] != '['; };
  if (f.size() > 5 && given(f[5])) g.compute_cap = f[5];
  if (f.size() > 6) g.power_limit_w = Mhz(f[6]);  // "700.00 W": the number first
  if (f.size() > 7) g.power_max_w = Mhz(f[7]);
  if (f.size() > 8 && given(f[8])) g.persistence = f[8];
  return g;
}

Result<std::optional<GpuFacts>> QueryGpu(ProcessRunner& runner, const std::string& logs_dir) {
  constexpr const char* kFields = "name,driver_version,clocks.sm,clocks.max.sm,clocks.mem";
  auto c = Capture(runner,
                   {"nvidia-smi",
                    std::string("--query-gpu=") + kFields + ",compute_cap,power.limit,power.max_limit,persistence_mode",
                    "--format=csv,noheader"},
                   logs_dir, "nvidia_smi", 60);
  if (!c.ok()) return std::optional<GpuFacts>();  // no nvidia-smi: the discovery run will tell
  const bool field_refused =
      !c->outcome.ok() && !c->lines.empty() && c->lines.front().find("is not a valid field") != std::string::npos;
  if (field_refused) {  // an older driver: the five fields every one knows
    c = Capture(runner, {"nvidia-smi", std::string("--query-gpu=") + kFields, "--format=csv,noheader"}, logs_dir,
                "nvidia_smi", 60);
    if (!c.ok()) return std::optional<GpuFacts>();
  }
  if (!c->outcome.ok()) {
    const std::string said = c->lines.empty() ? c->outcome.Describe() : c->lines.back();
    return Error{"nvidia-smi", "no usable NVIDIA GPU: " + said,
                 "run on a machine with an NVIDIA GPU and its driver loaded (check CUDA_VISIBLE_DEVICES)"};
  }
  for (const auto& l : c->lines) {
    if (auto g = ParseGpuLine(l)) return std::optional<GpuFacts>(*g);
  }
  return Error{"nvidia-smi", "no NVIDIA GPU is visible",
               "run on a machine with an NVIDIA GPU (check CUDA_VISIBLE_DEVICES)"};
}

std::string WorkloadPython(const std::vector<std::string>& workload) {
  auto is_python = [](const std::string& p) { return fs::path(p).filename().string().rfind("python", 0) == 0; };
  if (workload.empty()) return "python3";
  if (is_python(workload[0])) return workload[0];
  // A launcher script (torchrun, accelerate, deepspeed): the Python of its #! line.
  std::string path = workload[0];
  if (path.find('/') == std::string::npos) {
    if (auto found = FindOnPath(path)) path = *found;
  }
  std::ifstream in(path, std::ios::binary);
  std::string first;
  if (in && std::getline(in, first) && first.starts_with("#!")) {
    std::vector<std::string> words;
    std::istringstream ws(first.substr(2));
    for (std::string w; ws >> w;) words.push_back(w);
    // "#!/usr/bin/env python3" or "#!/opt/venv/bin/python3.11"
    for (const auto& w : words) {
      if (is_python(w)) return w;
    }
  }
  return "python3";
}

std::optional<std::string> TorchVersion(ProcessRunner& runner, const std::vector<std::string>& workload,
                                        const std::string& logs_dir) {
  auto c = Capture(runner, {WorkloadPython(workload), "-c", "import torch; print('torch', torch.__version__)"},
                   logs_dir, "torch_version", 120);
  if (!c.ok() || !c->outcome.ok()) return std::nullopt;
  for (const auto& l : c->lines) {
    if (l.rfind("torch ", 0) == 0) return l.substr(6);
  }
  return std::nullopt;
}

nlohmann::json ToJson(const GpuFacts& g) {
  nlohmann::json j{{"name", g.name}, {"driver", g.driver}};
  if (g.sm_mhz) j["sm_clock_mhz"] = *g.sm_mhz;
  if (g.sm_max_mhz) j["sm_max_clock_mhz"] = *g.sm_max_mhz;
  if (g.mem_mhz) j["mem_clock_mhz"] = *g.mem_mhz;
  if (!g.compute_cap.empty()) {
    j["compute_cap"] = g.compute_cap;
    std::string arch = "sm_";
    for (char ch : g.compute_cap) {
      if (ch != '.') arch.push_back(ch);
    }
    j["sm_arch"] = arch;
  }
  if (g.power_limit_w) j["power_limit_w"] = *g.power_limit_w;
  if (g.power_max_w) j["power_max_limit_w"] = *g.power_max_w;
  if (!g.persistence.empty()) j["persistence_mode"] = g.persistence;
  return j;
}

}  // namespace kscope::capture
