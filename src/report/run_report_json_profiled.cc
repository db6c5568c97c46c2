// report.json's profiled kernels and stall breakdowns (docs/report.md).
#include <cmath>

#include "report/run_report_json.h"

namespace kscope::report {

using nlohmann::json;

json StallsJson(const std::vector<analysis::Stall>& stalls) {
  json out = json::array();
  for (const auto& s : stalls) out.push_back({{"reason", s.reason}, {"value", s.value}, {"share_pct", s.share}});
  return out;
}

json ProfiledKernelsJson(const std::vector<ProfiledKernel>& kernels) {
  json out = json::array();
  for (const auto& k : kernels) {
    const KernelVerdict& v = k.verdict;
    out.push_back({{"name", k.name},
                   {"short_name", k.short_name},
                   {"top_kernel_rank", k.rank ? json(*k.rank) : json()},
                   {"profiled_ns", v.profiled_ns},
                   {"profiled_launches", v.profiled_launches},
                   {"bottleneck", v.bottleneck},
                   {"why", v.why},
                   {"rests_on", v.rests_on},
                   {"stalls_total", v.stalls_total && std::isfinite(*v.stalls_total) ? json(*v.stalls_total) : json()},
                   {"stall_unit", v.stall_unit.empty() ? json() : json(v.stall_unit)},
                   {"stalls", StallsJson(v.stalls)}});
  }
  return out;
}

}  // namespace kscope::report
