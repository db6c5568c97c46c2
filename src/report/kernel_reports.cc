#include "report/kernel_reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "analysis/iterations/fit_advice.h"
#include "analysis/kernels/ncu_kernel_sections.h"
#include "analysis/kernels/roofline.h"
#include "analysis/names/kernel_names.h"
#include "analysis/names/short_names.h"
#include "analysis/timeline/rank_selection.h"
#include "analysis/timeline/ranks.h"
#include "report/ncu_numbers.h"
#include "report/run_report.h"

namespace kscope::report {

namespace {

using analysis::KernelGroup;
using analysis::NcuLaunch;

struct KernelRow {
  const KernelGroup* group;
  const NcuLaunch* first;
  double gpu_ns = 0;  // summed duration of the profiled launches
};

Decimal Num(double v, int decimals) { return {v, fmt::format("{:.{}f}", v, decimals)}; }

// The launches ncu profiled on the rank's GPU (ncu's pass runs apart, so a launch is known
// by its device).
Status KeepRank(store::Store& store, int64_t run_id, int64_t rank, std::vector<NcuLaunch>& launches) {
  auto timeline = TimelineRun(store, run_id);
  if (!timeline.ok()) return timeline.error();
  auto ranks = analysis::ReadRanks(store, *timeline);
  if (!ranks.ok()) return ranks.error();
  auto found = analysis::FindRank(*ranks, rank, run_id);
  if (!found.ok()) return found.error();
  std::erase_if(launches, [&](const NcuLaunch& l) { return !l.key.device || *l.key.device != found->device; });
  if (launches.empty()) {
    return Error{"run " + std::to_string(run_id),
                 fmt::format("ncu profiled no launch on rank {}'s GPU ({})", rank, found->device),
                 "profile that rank with profile.ncu_rank=" + std::to_string(rank)};
  }
  return Status::Ok();
}

// What the run's workload already does (its timeline's CUDA graphs and Triton kernels), so that
// a kernel's advice does not ask for it.
Result<analysis::WorkloadTraits> TraitsOf(store::Store& store, int64_t run_id) {
  auto timeline = TimelineRun(store, run_id);
  if (!timeline.ok()) return analysis::WorkloadTraits{};  // an ncu capture alone: nothing known of the workload
  auto nsys = analysis::LoadNsysEvents(store, *timeline);
  if (!nsys.ok()) return nsys.error();
  auto input = analysis::LoadIterationInput(store, *timeline, *nsys);
  if (!input.ok()) return input.error();
  return analysis::LoadWorkloadTraits(store, *nsys, *input);
}

Result<std::pair<std::vector<NcuLaunch>, std::vector<KernelGroup>>> Load(store::Store& store, int64_t run_id,
                                                                         std::optional<int64_t> rank = std::nullopt) {
  auto launches = analysis::LoadNcuLaunches(store, run_id);
  if (!launches.ok()) return launches.error();
  if (launches->empty()) {
    return Error{
        "run " + std::to_string(run_id), "has no ncu results",
        "import its ncu report or raw page into it: kscope import --run " + std::to_string(run_id) + " REPORT.ncu-rep"};
  }
  if (rank) KSCOPE_RETURN_IF_ERROR(KeepRank(store, run_id, *rank, *launches));
  auto groups = analysis::GroupByKernel(*launches);
  return std::make_pair(std::move(launches).value(), std::move(groups));
}

std::vector<KernelRow> Rows(const std::vector<NcuLaunch>& launches, const std::vector<KernelGroup>& groups) {
  std::vector<KernelRow> rows;
  for (const auto& g : groups) {
    KernelRow r{&g, &launches[static_cast<size_t>(g.launch_ids.front())], 0};
    for (int64_t id : g.launch_ids)
      r.gpu_ns += launches[static_cast<size_t>(id)].Number("gpu__time_duration.sum").value_or(0);
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const KernelRow& a, const KernelRow& b) { return a.gpu_ns > b.gpu_ns; });
  return rows;
}

// Each row's short name, unique among the rows' kernels (one per kernel, whatever its shapes).
std::vector<std::string> ShortNames(const std::vector<KernelRow>& rows) {
  std::vector<std::string> names;
  names.reserve(rows.size());
  for (const KernelRow& r : rows) names.push_back(r.group->key.name);
  return analysis::ShortKernelNames(names);
}

std::string Shape(const store::NcuLaunchKey& k) {
  return fmt::format("({}, {}, {})x({}, {}, {})", k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2]);
}

Cell OptNum(const std::optional<double>& v, int decimals) { return v ? Cell(Num(*v, decimals)) : Cell(); }

std::string OptText(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

}  // namespace

Result<Table> KernelsTable(store::Store& store, int64_t run_id, const analysis::ClassifyThresholds& thresholds,
                           std::optional<int64_t> rank, KernelNames names) {
  auto loaded = Load(store, run_id, rank);
  if (!loaded.ok()) return loaded.error();
  const auto& [launches, groups] = *loaded;
  Table t;
  t.title = fmt::format("Profiled kernels of run {} by GPU time (ncu)", run_id);
  t.columns = {
      "ID",     "Kernel",   "Shape",      "Family",     "Library",  "Launches",  "GPU Time (us)",          "Class",
      "SM (%)", "DRAM (%)", "L1 Hit (%)", "L2 Hit (%)", "Roofline", "% of Roof", "Achieved Occupancy (%)", "Top Stall"};
  if (names == KernelNames::kShortAndFull) t.columns.emplace_back("Name");
  const std::vector<KernelRow> rows = Rows(launches, groups);
  const std::vector<std::string> short_names = ShortNames(rows);
  for (size_t id = 0; id < rows.size(); ++id) {
    const KernelRow& r = rows[id];
    const auto identity = analysis::IdentifyKernel(r.group->key.name);
    const auto d = analysis::Diagnose(*r.first, thresholds);
    const auto roof = analysis::ComputeRoofline(*r.first);
    const auto* p = analysis::MainPoint(roof);
    t.rows.push_back(
        {static_cast<int64_t>(id), short_names[id], Shape(r.group->key), identity.family,
         std::string(analysis::LibraryName(identity.library)), static_cast<int64_t>(r.group->launch_ids.size()),
         Num(r.gpu_ns / 1000.0, 2), std::string(analysis::BottleneckName(d.bottleneck)), OptNum(d.evidence.sm_pct, 1),
         OptNum(d.evidence.dram_pct, 1), OptNum(d.evidence.l1_hit_pct, 1), OptNum(d.evidence.l2_hit_pct, 1),
         p != nullptr ? Cell(fmt::format("{} {}-bound side, AI {:.2f}", p->precision,
                                         p->MemoryBound() ? "memory" : "compute", p->intensity))
                      : Cell(),
         p != nullptr ? Cell(Num(p->PercentOfRoof(), 1)) : Cell(), OptNum(d.evidence.achieved_occupancy_pct, 1),
         d.evidence.top_stalls.empty() ? Cell() : Cell(d.evidence.top_stalls.front().reason)});
    if (names == KernelNames::kShortAndFull) t.rows.back().emplace_back(r.group->key.name);
  }
  return t;
}

namespace {

// The arguments of the `kscope kernels` that lists what KernelDetailTables chooses from.
std::string ListArgs(int64_t run_id, std::optional<int64_t> rank) {
  return std::to_string(run_id) + (rank ? " --rank " + std::to_string(*rank) : "");
}

// The rows `which` names: its ID, else the rows of that short name, else those whose full
// name contains it.
std::vector<size_t> Named(const std::vector<KernelRow>& rows, const std::vector<std::string>& short_names,
                          const std::string& which) {
  size_t index = 0;
  auto [ptr, ec] = std::from_chars(which.data(), which.data() + which.size(), index);
  if (ec == std::errc() && ptr == which.data() + which.size()) return {index};
  std::vector<size_t> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (short_names[i] == which) out.push_back(i);
  }
  if (!out.empty()) return out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].group->key.name.find(which) != std::string::npos) out.push_back(i);
  }
  return out;
}

// The one row `which` names, or the error that says why there is none.
Result<size_t> Choose(const std::vector<KernelRow>& rows, const std::vector<std::string>& short_names,
                      const std::string& which, int64_t run_id, std::optional<int64_t> rank) {
  const std::string run = "run " + std::to_string(run_id);
  const std::vector<size_t> named = Named(rows, short_names, which);
  if (named.empty()) {
    return Error{run, "no profiled kernel's short name is '" + which + "' and no full name contains it",
                 "list them with: kscope kernels " + ListArgs(run_id, rank)};
  }
  if (named.size() > 1) {
    return Error{run, fmt::format("'{}' matches {} kernels", which, named.size()),
                 "give the kernel's ID from: kscope kernels " + ListArgs(run_id, rank)};
  }
  if (named.front() >= rows.size()) {
    return Error{run, fmt::format("no kernel with ID {} ({} kernels)", named.front(), rows.size()),
                 "list them with: kscope kernels " + ListArgs(run_id, rank)};
  }
  return named.front();
}

}  // namespace

Result<std::vector<Table>> KernelDetailTables(store::Store& store, int64_t run_id, const std::string& which,
                                              const analysis::ClassifyThresholds& thresholds,
                                              std::optional<int64_t> rank) {
  auto loaded = Load(store, run_id, rank);
  if (!loaded.ok()) return loaded.error();
  const auto& [launches, groups] = *loaded;
  const auto rows = Rows(launches, groups);
  const auto short_names = ShortNames(rows);
  auto index = Choose(rows, short_names, which, run_id, rank);
  if (!index.ok()) return index.error();
  const KernelRow* chosen = &rows[*index];
  const auto& g = *chosen->group;
  const auto names = analysis::IdentifyKernel(g.key.name);
  auto traits = TraitsOf(store, run_id);
  if (!traits.ok()) return traits.error();
  auto d = analysis::Diagnose(*chosen->first, thresholds);
  analysis::FitKernelAdvice(*traits, d);
  const auto roof = analysis::ComputeRoofline(*chosen->first);
  std::vector<Table> out;

  Table about{"Kernel", {"Field", "Value"}, {}};
  auto add = [&](std::string field, Cell value) { about.rows.push_back({std::move(field), std::move(value)}); };
  add("Name", g.key.name);
  add("Short name", short_names[*index]);
  add("Base name", names.base);
  add("Family", names.family);
  add("Library", std::string(analysis::LibraryName(names.library)));
  for (const auto& f : names.features) add("Feature: " + f.key, f.value);
  add("Shape", Shape(g.key));
  add("Process", fmt::format("[{}] {}", g.key.pid.value_or(0), g.key.process));
  add("Device, CC", fmt::format("{}, {}", g.key.device.value_or(0), g.key.cc));
  add("Profiled launches", static_cast<int64_t>(g.launch_ids.size()));
  if (!g.key.nvtx.empty()) add("NVTX", g.key.nvtx);
  add("Class", std::string(analysis::BottleneckName(d.bottleneck)));
  add("Why", d.why);
  if (!d.basis.empty()) add("Rests on", fmt::format("{}", fmt::join(d.basis, ", ")));
  const auto& e = d.evidence;
  add("SM / memory throughput (% of peak)", fmt::format("{} / {}", OptText(e.sm_pct), OptText(e.memory_pct)));
  add("DRAM / L1 / L2 throughput (% of peak)",
      fmt::format("{} / {} / {}", OptText(e.dram_pct), OptText(e.l1_pct), OptText(e.l2_pct)));
  add("L1 / L2 hit rate (%)", fmt::format("{} / {}", OptText(e.l1_hit_pct), OptText(e.l2_hit_pct)));
  add("Achieved / theoretical occupancy (%)",
      fmt::format("{} / {}", OptText(e.achieved_occupancy_pct), OptText(e.theoretical_occupancy_pct)));
  if (!e.occupancy_limiter.empty()) add("Occupancy limited by", e.occupancy_limiter);
  for (const auto& s : e.stalls) {
    add("Stall: " + s.reason,
        fmt::format("{} ({:.1f}% of the measured stalls)", analysis::StallValueText(e.stall_form, s.value), s.share));
  }
  if (e.stall_total) {
    add("Stalls in all",
        fmt::format("{} over {} reasons", analysis::StallValueText(e.stall_form, *e.stall_total), e.stall_reasons));
  }
  for (size_t i = 0; i < d.advice.size(); ++i) add(fmt::format("Advice {}", i + 1), d.advice[i]);
  if (!d.missing.empty()) add("Missing metrics", fmt::format("{}", fmt::join(d.missing, ", ")));
  out.push_back(std::move(about));

  Table rl{"Roofline (first profiled launch)",
           {"Precision", "Achieved (GFLOP/s)", "Peak (GFLOP/s)", "% of Peak", "DRAM (GB/s)", "Peak DRAM (GB/s)",
            "Intensity (FLOP/byte)", "Ridge (FLOP/byte)", "% of Roof"},
           {}};
  for (const auto& p : roof.points) {
    rl.rows.push_back({std::string(p.precision), Num(p.achieved_flops / 1e9, 2), Num(p.peak_flops / 1e9, 2),
                       Num(p.PercentOfPeak(), 2), Num(p.dram_bytes_per_s / 1e9, 2),
                       Num(p.peak_dram_bytes_per_s / 1e9, 2), Num(p.intensity, 3), Num(p.ridge, 3),
                       Num(p.PercentOfRoof(), 2)});
  }
  if (!roof.missing_precisions.empty()) {
    // One short row: which precisions have no point, how many metrics they lack (the first
    // few named), and what collects them.
    std::vector<std::string> some(roof.missing.begin(),
                                  roof.missing.begin() + std::min<size_t>(2, roof.missing.size()));
    rl.rows.push_back(
        {std::string("not measured"),
         fmt::format("{}: {} metrics missing ({}{}); {}", fmt::join(roof.missing_precisions, ", "), roof.missing.size(),
                     fmt::join(some, ", "), roof.missing.size() > 2 ? ", ..." : "", analysis::Roofline::kSections)});
    rl.rows.back().resize(rl.columns.size());
  }
  out.push_back(std::move(rl));

  Table sections{"Sections (as ncu --print-summary per-kernel)",
                 {"Section", "Metric Name", "Metric Unit", "Minimum", "Maximum", "Average"},
                 {}};
  for (const auto& s : g.sections) {
    for (const auto& r : s.rows) {
      const auto text = FormatNcuRow(r.unit, r.min, r.max, r.mean);
      sections.rows.push_back({std::string(s.title), std::string(r.label), text.unit, text.min, text.max, text.mean});
    }
  }
  out.push_back(std::move(sections));
  return out;
}

}  // namespace kscope::report
