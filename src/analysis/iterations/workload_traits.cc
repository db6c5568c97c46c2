#include "analysis/iterations/workload_traits.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

#include "analysis/names/api_names.h"

namespace kscope::analysis {

namespace {

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

Result<std::unordered_map<int64_t, std::string>> NamesOf(store::Store& store, const std::vector<int64_t>& ids) {
  std::set<int64_t> distinct(ids.begin(), ids.end());
  return store.Strings(std::vector<int64_t>(distinct.begin(), distinct.end()));
}

Status AddKernels(store::Store& store, const NsysEvents& nsys, const IterationInput& in, WorkloadTraits& t) {
  auto names = NamesOf(store, nsys.kernels.name);
  if (!names.ok()) return names.error();
  std::set<int64_t> graph_launches;
  for (size_t i = 0; i < nsys.kernels.start.size(); ++i) {
    const int64_t ns = nsys.kernels.end[i] - nsys.kernels.start[i];
    ++t.kernels;
    t.kernel_ns += ns;
    if (in.graph_launch[i] >= 0) {
      graph_launches.insert(in.graph_launch[i]);
      ++t.graph_kernels;
      t.graph_kernel_ns += ns;
    }
    if ((*names)[nsys.kernels.name[i]].starts_with("triton_")) {
      ++t.triton_kernels;
      t.triton_kernel_ns += ns;
    }
  }
  t.graph_launches = static_cast<int64_t>(graph_launches.size());
  return {};
}

Status AddApiCalls(store::Store& store, const NsysEvents& nsys, WorkloadTraits& t) {
  auto names = NamesOf(store, nsys.api.name);
  if (!names.ok()) return names.error();
  int64_t graph_calls = 0;
  std::vector<TimeWindow> loads;
  for (size_t i = 0; i < nsys.api.start.size(); ++i) {
    const std::string name = ApiDisplayName((*names)[nsys.api.name[i]]);
    if (name == "cudaGraphLaunch" || name == "cuGraphLaunch") ++graph_calls;
    if (name.starts_with("cuModuleLoad")) loads.push_back({nsys.api.start[i], nsys.api.end[i]});
  }
  t.graph_launches = std::max(t.graph_launches, graph_calls);
  t.module_load_calls = static_cast<int64_t>(loads.size());
  t.module_loads = MergeIntervals(std::move(loads));
  return {};
}

}  // namespace

double WorkloadTraits::graph_kernel_pct() const { return Pct(graph_kernel_ns, kernel_ns); }
double WorkloadTraits::triton_kernel_pct() const { return Pct(triton_kernel_ns, kernel_ns); }

Result<WorkloadTraits> LoadWorkloadTraits(store::Store& store, const NsysEvents& nsys, const IterationInput& in) {
  WorkloadTraits t;
  KSCOPE_RETURN_IF_ERROR(AddKernels(store, nsys, in, t));
  KSCOPE_RETURN_IF_ERROR(AddApiCalls(store, nsys, t));
  return t;
}

}  // namespace kscope::analysis
