#include "capture/commands.h"

#include <algorithm>
#include <cstdlib>

#include "analysis/kernels/launch_flops.h"

namespace kscope::capture {

std::vector<std::string> NsysProfileArgv(const std::string& nsys, const NsysOptions& c, const std::string& out_base,
                                         const std::vector<std::string>& workload, bool visible_only) {
  std::vector<std::string> a{nsys, "profile", "--trace=" + c.trace, "--sample=" + c.sample,
                             "--cuda-graph-trace=" + c.cuda_graph_trace};
  if (!c.capture_range.empty()) {
    a.insert(a.end(), {"--capture-range=nvtx", "--nvtx-capture=" + c.capture_range, "--capture-range-end=stop"});
  }
  if (!c.pytorch.empty()) a.push_back("--pytorch=" + c.pytorch);
  if (c.duration_s > 0) a.push_back("--duration=" + std::to_string(c.duration_s));
  if (c.gpu_metrics == "on") {
    a.insert(a.end(), {visible_only ? "--gpu-metrics-devices=cuda-visible" : "--gpu-metrics-devices=all",
                       "--gpu-metrics-frequency=" + std::to_string(c.gpu_metrics_hz)});
  }
  a.insert(a.end(), {"-o", out_base, "--force-overwrite=true"});
  a.insert(a.end(), c.extra_args.begin(), c.extra_args.end());
  a.insert(a.end(), workload.begin(), workload.end());
  return a;
}

bool SeesSomeGpusOnly(const std::map<std::string, std::string>& env) {
  if (env.count("CUDA_VISIBLE_DEVICES") != 0) return true;
  return std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
}

std::map<std::string, std::string> NsysProfileEnv(const NsysOptions& c) {
  if (c.capture_range.empty()) return {};
  return {{"NSYS_NVTX_PROFILER_REGISTER_ONLY", "0"}};
}

std::vector<std::string> NsysExportArgv(const std::string& nsys, const std::string& report,
                                        const std::string& out_sqlite) {
  return {nsys, "export", "--type", "sqlite", "-o", out_sqlite, "--force-overwrite=true", report};
}

std::string NcuSet(const NcuOptions& c) { return !c.set.empty() ? c.set : c.mode == "full" ? "full" : ""; }

std::vector<std::string> NcuSections(const NcuOptions& c) {
  if (!NcuSet(c).empty()) return c.sections;  // the set's sections, and the extra ones
  std::vector<std::string> s{"SpeedOfLight", "MemoryWorkloadAnalysis", "LaunchStats", "Occupancy"};
  if (c.mode == "deep" || c.mode == "roofline") {
    s.insert(s.end(), {"WarpStateStats", "SchedulerStats", "InstructionStats", "ComputeWorkloadAnalysis"});
  } else if (c.stalls == "on") {
    s.emplace_back("WarpStateStats");  // the stall reasons behind every class, not only the top one
  }
  if (c.mode == "roofline") {
    s.insert(s.end(), {"SpeedOfLight_RooflineChart", "SpeedOfLight_HierarchicalSingleRooflineChart",
                       "SpeedOfLight_HierarchicalHalfRooflineChart", "SpeedOfLight_HierarchicalDoubleRooflineChart",
                       "SpeedOfLight_HierarchicalTensorRooflineChart"});
  }
  for (const auto& extra : c.sections) {
    if (std::find(s.begin(), s.end(), extra) == s.end()) s.push_back(extra);
  }
  return s;
}

int64_t EstimatedPasses(const NcuOptions& c) {
  const std::string set = NcuSet(c);
  int64_t passes = set == "full"          ? 38
                   : set == "basic"       ? 10
                   : !set.empty()         ? 24
                   : c.mode == "roofline" ? 32
                   : c.mode == "deep"     ? 20
                   : c.stalls == "on"     ? 18  // quick 11, WarpStateStats 7 more (H100, ncu 2025.3.1)
                                          : 11;
  passes += static_cast<int64_t>(c.sections.size());  // a section more: a pass more, about
  // The FLOP counters: 4 passes more (H100, ncu 2025.3.1: 22 for each of the 407 launches of the
  // defaults in docs/gpu/issue21_gate, 15 where the quick sections alone take 11).
  if (c.flops == "on" && c.mode != "roofline" && set != "full" && set != "roofline") passes += 4;
  if (!c.metrics.empty()) passes += 2;
  return passes;
}

std::vector<std::string> NcuMetrics(const NcuOptions& c) {
  std::vector<std::string> m = c.flops == "on" ? analysis::FlopMetrics() : std::vector<std::string>{};
  for (const auto& extra : c.metrics) {
    if (std::find(m.begin(), m.end(), extra) == m.end()) m.push_back(extra);
  }
  return m;
}

namespace {
// ncu's launch window: the selection's per-configuration one, or a pass's own global window
// over a growing shape's sizes.
struct Window {
  std::string mode;
  int64_t skip, count;
};
Window WindowOf(const Selection& sel, const NcuPass* pass) {
  if (pass != nullptr && !pass->kernel_id.empty()) return {"global", 0, pass->count};
  if (pass != nullptr && pass->skip >= 0) return {"global", pass->skip, pass->count};
  return {sel.filter_mode, sel.warmup, sel.launches};
}

// `device`: the GPU ncu profiles (--devices; -1: none named). `kernel_id`: a pass that picks its
// launches by invocation number (--kernel-id) instead of --kernel-name `filter`, and ends the
// workload after its last one.
std::vector<std::string> NcuCommon(const std::string& ncu, const NcuOptions& c, const Selection& sel,
                                   const std::string& filter, const Window& w, const std::vector<std::string>& metrics,
                                   int64_t device, const std::string& kernel_id = "") {
  std::vector<std::string> a{ncu,
                             "--target-processes",
                             c.target_processes,
                             "--kernel-name-base",
                             sel.name_base,
                             kernel_id.empty() ? "--kernel-name" : "--kernel-id",
                             kernel_id.empty() ? filter : kernel_id,
                             "--filter-mode",
                             w.mode,
                             "--launch-skip",
                             std::to_string(w.skip),
                             "--launch-count",
                             std::to_string(w.count)};
  if (!sel.nvtx_include.empty() || !sel.nvtx_exclude.empty()) a.emplace_back("--nvtx");
  if (!sel.nvtx_include.empty()) a.insert(a.end(), {"--nvtx-include", sel.nvtx_include});
  for (const auto& x : sel.nvtx_exclude) a.insert(a.end(), {"--nvtx-exclude", x});
  if (const std::string set = NcuSet(c); !set.empty()) a.insert(a.end(), {"--set", set});
  for (const auto& s : NcuSections(c)) a.insert(a.end(), {"--section", s});
  if (!metrics.empty()) {
    std::string list;
    for (const auto& m : metrics) list += (list.empty() ? "" : ",") + m;
    a.insert(a.end(), {"--metrics", list});
  }
  // One rank of a job under one nsys: ncu profiles the GPU that rank ran on.
  if (device >= 0) a.insert(a.end(), {"--devices", std::to_string(device)});
  if (sel.communicator_peers > 0) {
    a.insert(a.end(),
             {"--communicator", "shmem", "--communicator-shmem-num-peers", std::to_string(sel.communicator_peers)});
  }
  a.insert(a.end(), {"--replay-mode", sel.replay.empty() ? c.replay : sel.replay, "--clock-control", c.clock_control,
                     "--cache-control", c.cache_control});
  return a;
}
}  // namespace

std::vector<std::string> NcuProfileArgv(const std::string& ncu, const NcuOptions& c, const Selection& sel,
                                        const NcuPass& pass, const std::vector<std::string>& metrics,
                                        const std::string& out_base, const std::vector<std::string>& workload,
                                        NcuDevice device) {
  const int64_t gpu = device == NcuDevice::kSelections ? sel.device : -1;
  auto a = NcuCommon(ncu, c, sel, pass.filter, WindowOf(sel, &pass), metrics, gpu, pass.kernel_id);
  if (pass.kill) a.insert(a.end(), {"--kill", "yes"});
  a.insert(a.end(), {"-o", out_base, "-f"});
  a.insert(a.end(), c.extra_args.begin(), c.extra_args.end());
  a.insert(a.end(), workload.begin(), workload.end());
  return a;
}

std::vector<std::string> NcuKernelArgv(const std::string& ncu, const NcuOptions& c, const Selection& sel,
                                       const SelectedKernel& k, const std::vector<std::string>& metrics,
                                       const std::vector<std::string>& workload) {
  auto a = NcuCommon(ncu, c, sel, k.filter, WindowOf(sel, nullptr), metrics, sel.device);
  a.insert(a.end(), c.extra_args.begin(), c.extra_args.end());
  a.insert(a.end(), workload.begin(), workload.end());
  return a;
}

std::string ShellQuote(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             std::string_view("_-./=:,+@%").find(ch) != std::string_view::npos;
    });
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char ch : arg) {
      if (ch == '\'') {
        out += "'\\''";
      } else {
        out += ch;
      }
    }
    out += '\'';
  }
  return out;
}

}  // namespace kscope::capture
