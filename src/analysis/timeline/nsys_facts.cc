#include "analysis/timeline/nsys_facts.h"

#include <algorithm>
#include <string>

#include "analysis/timeline/launch_links.h"

namespace kscope::analysis {

int64_t OpenRangeEnd(const NsysEvents::Nvtx& nvtx) {
  int64_t end = 0;
  for (size_t i = 0; i < nvtx.start.size(); ++i) end = std::max({end, nvtx.start[i], nvtx.end[i]});
  return end;
}

Result<NsysFacts> FactsFromEvents(const NsysEvents& e) {
  NsysFacts f;
  f.kernels = {e.kernels.start, e.kernels.end, e.kernels.correlation, {}};
  f.kernels.name.reserve(e.kernels.name.size());
  for (int64_t name : e.kernels.name) {
    if (name < INT32_MIN || name > INT32_MAX) {
      return Error{"", "kernel name id " + std::to_string(name) + " does not fit 32 bits",
                   "import into a new database"};
    }
    f.kernels.name.push_back(static_cast<int32_t>(name));
  }
  f.memops = e.memops;
  f.nvtx = e.nvtx;
  for (size_t i = 0; i < e.api.start.size(); ++i) f.api_durations[e.api.name[i]].Add(e.api.end[i] - e.api.start[i]);
  const auto n_kernels = static_cast<uint32_t>(e.kernels.start.size());
  for (const LaunchLink& l : LinkLaunches(e, OpenRangeEnd(e.nvtx))) {
    const uint32_t op = l.op < n_kernels ? l.op : NsysFacts::kMemop | (l.op - n_kernels);
    f.launches.push_back({op, l.range, ThreadIndex(f.threads, e.api.global_tid[l.api])});
  }
  return f;
}

}  // namespace kscope::analysis
