// What a run's workload already does, so that advice does not ask for it again: CUDA graphs
// replayed, kernels that torch.compile generated (Triton), modules loaded at run time (the
// compiled kernels' cuModuleLoad* calls).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/iterations/iterations.h"
#include "analysis/timeline/intervals.h"
#include "analysis/timeline/nsys_events.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

struct WorkloadTraits {
  int64_t kernels = 0, kernel_ns = 0;
  // CUDA graphs: launches (cudaGraphLaunch/cuGraphLaunch calls, or distinct launches of the
  // kernels that carry a graph node id), and the kernels they ran.
  int64_t graph_launches = 0, graph_kernels = 0, graph_kernel_ns = 0;
  // torch.compile: kernels whose name starts with 'triton_' (Inductor's generated kernels).
  int64_t triton_kernels = 0, triton_kernel_ns = 0;
  // Modules loaded while the run went on (cuModuleLoad, cuModuleLoadData, ...), start order.
  IntervalSet module_loads;
  int64_t module_load_calls = 0;

  [[nodiscard]] bool replays_graphs() const { return graph_launches > 0; }
  [[nodiscard]] bool uses_torch_compile() const { return triton_kernels > 0; }
  [[nodiscard]] double graph_kernel_pct() const;
  [[nodiscard]] double triton_kernel_pct() const;
};

// `in`: the run's iteration input (its graph launches).
Result<WorkloadTraits> LoadWorkloadTraits(store::Store& store, const NsysEvents& nsys, const IterationInput& in);

}  // namespace kscope::analysis
