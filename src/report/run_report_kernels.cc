// The kernel parts of a run's report: top kernels, the bottleneck mix, the roofline.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/kernels/ncu_kernel_sections.h"
#include "analysis/kernels/roofline.h"
#include "analysis/names/kernel_names.h"
#include "analysis/timeline/kernel_totals.h"
#include "report/nsys_stats.h"
#include "report/run_report_parts.h"

namespace kscope::report::parts {

std::optional<double> Finite(const std::optional<double>& v) { return v && std::isfinite(*v) ? v : std::nullopt; }

namespace {

// A mean of one figure over launches: (sum of value x weight, sum of weights).
struct Mean {
  double sum = 0, weight = 0;
  void Add(const std::optional<double>& v, double w) {
    if (!v) return;
    sum += *v * w;
    weight += w;
  }
  [[nodiscard]] std::optional<double> Value() const {
    return weight > 0 ? std::optional<double>(sum / weight) : std::nullopt;
  }
};

struct Figures {
  Mean occupancy, sm, dram, l1_hit, l2_hit;
};

}  // namespace

std::map<std::string, KernelVerdict> Verdicts(const std::vector<analysis::NcuLaunch>& launches,
                                              const analysis::ClassifyThresholds& t) {
  std::map<std::string, KernelVerdict> out;
  std::map<std::string, double> longest;  // the longest group's time decides the class
  std::map<std::string, Figures> figures;
  for (const auto& g : analysis::GroupByKernel(launches)) {
    const std::string key = analysis::KernelMatchKey(g.key.name);
    double group_ns = 0;
    for (int64_t id : g.launch_ids) {
      const auto& l = launches[static_cast<size_t>(id)];
      const double ns = l.Number("gpu__time_duration.sum").value_or(0);
      group_ns += ns;
      const auto e = analysis::GatherEvidence(l);
      Figures& f = figures[key];
      f.occupancy.Add(e.achieved_occupancy_pct, 1);
      f.sm.Add(e.sm_pct, ns);
      f.dram.Add(e.dram_pct, ns);
      f.l1_hit.Add(e.l1_hit_pct, ns);
      f.l2_hit.Add(e.l2_hit_pct, ns);
    }
    KernelVerdict& v = out[key];
    v.profiled_ns += group_ns;
    v.profiled_launches += static_cast<int64_t>(g.launch_ids.size());
    if (group_ns >= longest[key]) {
      longest[key] = group_ns;
      const auto d = analysis::Diagnose(launches[static_cast<size_t>(g.launch_ids.front())], t);
      v.bottleneck = std::string(analysis::BottleneckName(d.bottleneck));
      v.top_stall = d.evidence.top_stalls.empty() ? "" : d.evidence.top_stalls.front().reason;
      v.why = d.why;
      v.rests_on = d.basis;
      v.stalls_total = d.evidence.stall_total;
      v.stalls = d.evidence.stalls;
      v.ncu_name = g.key.name;
      v.stall_unit = !d.evidence.stall_total                                   ? ""
                     : d.evidence.stall_form == analysis::StallForm::kPerIssue ? "cycles/issue"
                                                                               : "% of active warps";
    }
  }
  for (auto& [key, v] : out) {
    const Figures& f = figures[key];
    v.achieved_occupancy_pct = f.occupancy.Value();
    v.sm_pct = f.sm.Value();
    v.dram_pct = f.dram.Value();
    v.l1_hit_pct = f.l1_hit.Value();
    v.l2_hit_pct = f.l2_hit.Value();
  }
  return out;
}

namespace {

// A verdict as the report holds it: its optional figures absent when not finite.
KernelVerdict ReportedVerdict(KernelVerdict v) {
  for (auto* figure :
       {&v.sm_pct, &v.dram_pct, &v.l1_hit_pct, &v.l2_hit_pct, &v.achieved_occupancy_pct, &v.stalls_total}) {
    *figure = Finite(*figure);
  }
  return v;
}

// Every profiled kernel by profiled time, named as nsys names it where the timeline has it.
void AddProfiled(const std::map<std::string, KernelVerdict>& verdicts,
                 const std::map<std::string, std::pair<std::string, int64_t>>& nsys_of, RunReport& out) {
  for (const auto& [key, v] : verdicts) {
    ProfiledKernel p{.name = v.ncu_name, .verdict = ReportedVerdict(v)};
    if (auto it = nsys_of.find(key); it != nsys_of.end()) {
      p.name = it->second.first;
      if (it->second.second <= 20) p.rank = it->second.second;
    }
    out.profiled.push_back(std::move(p));
  }
  std::stable_sort(out.profiled.begin(), out.profiled.end(), [](const ProfiledKernel& a, const ProfiledKernel& b) {
    return a.verdict.profiled_ns > b.verdict.profiled_ns;
  });
}

}  // namespace

Status AddKernels(store::Store& store, int64_t timeline_run, const analysis::RankSelection* rank,
                  const std::map<std::string, KernelVerdict>& verdicts, RunReport& out) {
  auto totals = analysis::KernelTotals(store, timeline_run, rank);
  if (!totals.ok()) return totals.error();
  const std::vector<analysis::KernelTotal>& rows = *totals;
  int64_t all_ns = 0;
  for (const auto& r : rows) all_ns += r.total;
  auto pct = [&](double ns) { return all_ns > 0 ? 100.0 * ns / static_cast<double>(all_ns) : 0.0; };
  std::map<std::string, std::pair<int64_t, int64_t>> mix;          // class -> (ns, kernels)
  std::map<std::string, std::pair<std::string, int64_t>> nsys_of;  // match key -> (nsys name, rank)
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto id = analysis::IdentifyKernel(r.name);
    nsys_of.emplace(analysis::KernelMatchKey(r.name), std::pair(r.name, static_cast<int64_t>(i + 1)));
    auto v = verdicts.find(analysis::KernelMatchKey(r.name));
    const std::string cls = v == verdicts.end() ? "not profiled" : v->second.bottleneck;
    mix[cls].first += r.total;
    ++mix[cls].second;
    if (i >= 20) continue;
    out.top_kernels.push_back(
        {.rank = static_cast<int64_t>(i + 1),
         .name = r.name,
         .base = id.base,
         .family = id.family,
         .library = std::string(analysis::LibraryName(id.library)),
         .launches = r.n,
         .total_ns = r.total,
         .avg_ns = r.mean,
         .share_pct = pct(static_cast<double>(r.total)),
         .verdict = v == verdicts.end() ? std::nullopt : std::optional(ReportedVerdict(v->second))});
  }
  AddProfiled(verdicts, nsys_of, out);
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> sorted(mix.begin(), mix.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  for (const auto& [cls, v] : sorted) {
    out.bottleneck_mix.push_back(
        {.bottleneck = cls, .total_ns = v.first, .share_pct = pct(static_cast<double>(v.first)), .kernels = v.second});
  }
  return Status::Ok();
}

RooflinePart Roofline(const std::vector<analysis::NcuLaunch>& launches, const analysis::ClassifyThresholds& t) {
  RooflinePart out;
  std::map<std::string, std::vector<std::pair<double, double>>> roofs;  // precision -> (peak, bandwidth)
  for (const auto& g : analysis::GroupByKernel(launches)) {
    // The group's mean position: achieved work and bytes summed over its launches.
    std::map<std::string, std::pair<double, double>> work;  // precision -> (flops, seconds)
    std::map<std::string, analysis::RooflinePoint> any;
    double bytes = 0, seconds = 0;
    for (int64_t id : g.launch_ids) {
      const auto& l = launches[static_cast<size_t>(id)];
      const double s = l.Number("gpu__time_duration.sum").value_or(0) * 1e-9;
      const auto roof = analysis::ComputeRoofline(l);
      if (roof.points.empty()) continue;
      seconds += s;
      bytes += roof.points.front().dram_bytes_per_s * s;
      for (const auto& p : roof.points) {
        work[std::string(p.precision)].first += p.achieved_flops * s;
        any[std::string(p.precision)] = p;
        roofs[std::string(p.precision)].emplace_back(p.peak_flops, p.peak_dram_bytes_per_s);
      }
    }
    if (seconds <= 0) continue;
    const auto d = analysis::Diagnose(launches[static_cast<size_t>(g.launch_ids.front())], t);
    const auto id = analysis::IdentifyKernel(g.key.name);
    for (const auto& [precision, w] : work) {
      if (w.first <= 0 || bytes <= 0) continue;  // nothing to place on a log-log chart
      const auto& p = any[precision];
      const double achieved = w.first / seconds;
      const double intensity = w.first / bytes;
      const double roof = std::min(p.peak_flops, intensity * p.peak_dram_bytes_per_s);
      out.points.push_back({.kernel = g.key.name,
                            .base = id.base,
                            .family = id.family,
                            .grid = g.key.grid,
                            .block = g.key.block,
                            .launches = static_cast<int64_t>(g.launch_ids.size()),
                            .precision = precision,
                            .intensity = intensity,
                            .achieved_flops = achieved,
                            .peak_flops = p.peak_flops,
                            .peak_dram_bytes_per_s = p.peak_dram_bytes_per_s,
                            .ridge = p.peak_dram_bytes_per_s > 0 ? p.peak_flops / p.peak_dram_bytes_per_s : 0,
                            .pct_of_roof = roof > 0 ? 100 * achieved / roof : 0,
                            .bottleneck = std::string(analysis::BottleneckName(d.bottleneck))});
    }
  }
  for (auto& [precision, v] : roofs) {
    std::sort(v.begin(), v.end());
    const auto& mid = v[v.size() / 2];
    out.roofs.push_back({.precision = precision,
                         .peak_flops = mid.first,
                         .peak_dram_bytes_per_s = mid.second,
                         .ridge = mid.second > 0 ? mid.first / mid.second : 0});
  }
  return out;
}

}  // namespace kscope::report::parts
