#include "analysis/iterations/fit_advice.h"

#include <fmt/format.h>

#include <string>

namespace kscope::analysis {

namespace {

// What the workload already does, as a clause: "it already replays CUDA graphs (16 launches,
// 73.1% of kernel time) and uses torch.compile (1,204 Triton kernels)".
std::string AlreadyDoes(const WorkloadTraits& t) {
  std::string graphs, compile;
  if (t.replays_graphs()) {
    graphs = fmt::format("replays CUDA graphs ({} launch{}, {:.1f}% of kernel time)", t.graph_launches,
                         t.graph_launches == 1 ? "" : "es", t.graph_kernel_pct());
  }
  if (t.uses_torch_compile()) {
    compile = fmt::format("uses torch.compile ({} Triton kernel launches, {:.1f}% of kernel time)", t.triton_kernels,
                          t.triton_kernel_pct());
  }
  if (!graphs.empty() && !compile.empty()) return graphs + " and " + compile;
  return graphs + compile;
}

std::string LaunchBoundFix(const WorkloadTraits& t) {
  std::string fix = "The workload already " + AlreadyDoes(t) + ". ";
  if (t.replays_graphs() && t.graph_kernel_pct() < 90) {
    fix += "The launches left are those outside the graphs: capture them into the graph as well, ";
  } else if (t.replays_graphs()) {
    fix += "Inside a graph the GPU still waits between short kernels: ";
  } else {
    fix +=
        "Its compiled code still launches short kernels one by one: capture the loop with "
        "torch.compile(mode=\"reduce-overhead\") (CUDA graphs), ";
  }
  return fix + "fuse what remains into fewer kernels, or give each launch more work (bigger batches).";
}

std::string HostIdleFix(const WorkloadTraits& t) {
  return "The host is busy outside CUDA during the gaps (Python, data loading, I/O); the workload already " +
         AlreadyDoes(t) +
         ", so the time is host work outside them: overlap it with the GPU (DataLoader workers, prefetching, "
         "non_blocking copies) or move it out of the loop.";
}

// One line of a kernel's advice, rewritten where it asks for what the workload already does.
std::string FitKernelLine(const WorkloadTraits& t, const std::string& line) {
  if (t.replays_graphs() && line.find("CUDA graph") != std::string::npos) {
    return fmt::format(
        "the workload already replays CUDA graphs ({:.1f}% of kernel time in them): if this kernel runs outside "
        "them, capture it into the graph as well",
        t.graph_kernel_pct());
  }
  if (t.uses_torch_compile() && line.find("torch.compile") != std::string::npos) {
    return fmt::format(
        "the workload already uses torch.compile ({:.1f}% of kernel time in Triton kernels): fuse this kernel with "
        "its neighbours where Inductor did not (a graph break, an op it leaves to a library), to pay the launch once",
        t.triton_kernel_pct());
  }
  return line;
}

}  // namespace

void FitKernelAdvice(const WorkloadTraits& traits, Diagnosis& d) {
  for (std::string& line : d.advice) line = FitKernelLine(traits, line);
}

void FitAdvice(const WorkloadTraits& traits, std::vector<Finding>& findings) {
  if (!traits.replays_graphs() && !traits.uses_torch_compile()) return;
  for (Finding& f : findings) {
    if (f.kind == "launch_bound") f.fix = LaunchBoundFix(traits);
    const bool suggests =
        f.fix.find("CUDA graph") != std::string::npos || f.fix.find("torch.compile") != std::string::npos;
    if (f.kind == "gpu_idle" && suggests) f.fix = HostIdleFix(traits);
  }
}

}  // namespace kscope::analysis
