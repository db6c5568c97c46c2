// How a selection reads on screen and in manifest.json.
#include <fmt/format.h>

#include "capture/selection.h"

namespace kscope::capture {

namespace {

// Which rank ncu profiles, and the communication kernels left to nsys.
std::string RanksAndCommunication(const Selection& sel) {
  std::string out;
  if (sel.ranks > 1) {
    out += fmt::format(
        "  {} processes launched GPU kernels (ranks in process order); ncu profiles rank {} (process {}, GPU {}: "
        "--devices {}) while the others run unprofiled (profile.ncu_rank)\n",
        sel.ranks, sel.rank, sel.rank_pid, sel.device, sel.device);
  }
  if (sel.comm_launches > 0) {
    const double total = static_cast<double>(sel.scope_ns + sel.comm_ns);
    out += fmt::format(
        "  communication left out: {} kernel{}, {} launches, {:.3f} ms ({:.1f}% of the kernel time{}), measured from "
        "nsys only: ncu's replay of one would wait for peers that do not replay it (selection.communication=on "
        "profiles them)\n",
        sel.comm_kernels, sel.comm_kernels == 1 ? "" : "s", sel.comm_launches, static_cast<double>(sel.comm_ns) / 1e6,
        total > 0 ? 100.0 * static_cast<double>(sel.comm_ns) / total : 0.0,
        sel.ranks > 1 ? fmt::format(" of rank {}", sel.rank) : "");
  }
  return out;
}

// Growing shapes: what was sampled and how much of the coverage the samples stand for.
std::string GrowingShapes(const Selection& sel) {
  if (sel.growing_kernels == 0) return "";
  int64_t runs = 0, launches = 0;
  for (const auto& p : sel.passes) {
    if (p.skip < 0) continue;
    ++runs;
    launches += static_cast<int64_t>(p.profiled_rows.size());
  }
  return fmt::format(
      "  growing shapes: {} kernel{} with {} launch configurations that differ in one dimension get {} sampled "
      "size{} ({} ncu run{}, {} launches); of the {:.1f}% deep coverage, {:.1f}% is measured and {:.1f}% "
      "represented by the samples\n",
      sel.growing_kernels, sel.growing_kernels == 1 ? "" : "s", sel.growing_configs, sel.growing_sizes,
      sel.growing_sizes == 1 ? "" : "s", runs, runs == 1 ? "" : "s", launches, sel.deep_pct,
      sel.deep_pct - sel.represented_pct, sel.represented_pct);
}

}  // namespace

namespace {

// "estimated ncu time 75 s: 2 ncu runs of the workload (20.1 s each, 1 of them ended after its
// last profiled launch), ncu adding 0.107 ms to each of its 53362 launches, and 50 launches x
// 22 passes x 0.036 s; budget 600 s"
std::string EstimateLine(const Selection& sel, int64_t launches) {
  const auto killed = std::count_if(sel.passes.begin(), sel.passes.end(), [](const NcuPass& p) { return p.kill; });
  return fmt::format(
      "  estimated ncu time {:.0f} s: {} ncu run{} of the workload ({:.1f} s each{}), ncu adding {:.3f} ms to each of "
      "its {} launches, and {} launches x {} passes x {:g} s{}\n",
      sel.estimated_s, sel.passes.size(), sel.passes.size() == 1 ? "" : "s", sel.workload_s,
      killed > 0 ? fmt::format(", {} of them ended after its last profiled launch", killed) : "", sel.launch_s * 1e3,
      sel.workload_launches, launches, sel.passes_per_launch, sel.pass_s,
      sel.budget_s > 0 ? fmt::format("; budget {:.0f} s (selection.budget_s)", sel.budget_s) : "");
}

}  // namespace

std::string FormatSelection(const Selection& sel) {
  std::string scope = sel.stage.empty() ? "the whole run" : "NVTX range '" + sel.stage + "'";
  if (sel.ranks > 1) scope = fmt::format("rank {} of {} ({})", sel.rank, sel.ranks, scope);
  if (sel.comm_launches > 0) scope = "the compute kernels of " + scope;
  for (const auto& x : sel.nvtx_exclude) scope += " outside '" + x + "'";
  if (sel.warmup_kernels > 0) scope += " after its warm-up";
  int64_t launches = 0;
  for (const auto& p : sel.passes) launches += static_cast<int64_t>(p.profiled_rows.size());
  if (!sel.target.empty()) {
    std::string out = fmt::format(
        "selection: {} kernel{} of {} match{} '{}' ({:.1f}% of its GPU kernel time); ncu profiles {} launch{}: {} "
        "of each {}{}\n",
        sel.kernels.size(), sel.kernels.size() == 1 ? "" : "s", scope, sel.kernels.size() == 1 ? "es" : "", sel.target,
        sel.covered_pct, launches, launches == 1 ? "" : "es",
        sel.launches == 1 ? fmt::format("launch {}", sel.warmup + 1)
                          : fmt::format("launches {} to {}", sel.warmup + 1, sel.warmup + sel.launches),
        sel.filter_mode == "global" ? "kernel" : "launch configuration",
        sel.passes.size() > 1 ? fmt::format(", in {} ncu runs (one a kernel)", sel.passes.size()) : "");
    out += RanksAndCommunication(sel);
    out += "    #  time %  launches  configs  profiled  kernel\n";
    for (size_t i = 0; i < sel.kernels.size(); ++i) {
      const auto& k = sel.kernels[i];
      out += fmt::format("  {:>3}  {:>6.1f}  {:>8}  {:>7}  {:>8}  {}\n", i + 1, k.share_pct, k.launches, k.configs,
                         k.profiled, k.name);
    }
    return out;
  }
  std::string out = fmt::format(
      "selection: {} kernel{} cover {:.1f}% of the GPU kernel time of {} ({} launches, {:.3f} ms); their launch "
      "configurations with more than {} launches ({:.1f}% of the time) get deep metrics: {} ncu run{}, {} launches "
      "({} after {} warm-up per configuration)\n",
      sel.kernels.size(), sel.kernels.size() == 1 ? "" : "s", sel.covered_pct, scope, sel.scope_kernels,
      static_cast<double>(sel.scope_ns) / 1e6, sel.warmup, sel.deep_pct, sel.passes.size(),
      sel.passes.size() == 1 ? "" : "s", launches, sel.launches, sel.warmup);
  out += RanksAndCommunication(sel);
  out += GrowingShapes(sel);
  if (sel.warmup_kernels > 0) {
    std::string stages;
    for (const auto& st : sel.warmup_stages) stages += (stages.empty() ? "'" : ", '") + st + "'";
    out += fmt::format(
        "  ranked on the steady state: the {} of {} (stages.warmup) left out as warm-up, {} launches, {:.3f} ms\n",
        sel.warmup_instances == 1 ? "first instance" : fmt::format("first {} instances", sel.warmup_instances), stages,
        sel.warmup_kernels, static_cast<double>(sel.warmup_ns) / 1e6);
  }
  if (sel.passes_per_launch > 0) out += EstimateLine(sel, launches);
  out += "    #  time %  cum %  launches  configs  profiled  kernel\n";
  for (size_t i = 0; i < sel.kernels.size(); ++i) {
    const auto& k = sel.kernels[i];
    std::string name = k.name.size() > 100 ? k.name.substr(0, 97) + "..." : k.name;
    out += fmt::format("  {:>3}  {:>6.1f}  {:>5.1f}  {:>8}  {:>7}  {:>8}  {}\n", i + 1, k.share_pct, k.cumulative_pct,
                       k.launches, k.configs, k.profiled, name);
  }
  return out;
}

nlohmann::json SelectionJson(const Selection& sel) {
  nlohmann::json j{{"stage", sel.stage},
                   {"nvtx_include", sel.nvtx_include},
                   {"scope_kernels", sel.scope_kernels},
                   {"scope_ns", sel.scope_ns},
                   {"covered_pct", sel.covered_pct},
                   {"deep_pct", sel.deep_pct},
                   {"launch_skip_per_config", sel.warmup},
                   {"launch_count_per_config", sel.launches},
                   {"filter_mode", sel.filter_mode},
                   {"target", sel.target},
                   {"nvtx_exclude", sel.nvtx_exclude},
                   {"passes_per_launch", sel.passes_per_launch},
                   {"app_s", sel.app_s},
                   {"workload_s", sel.workload_s},
                   {"workload_launches", sel.workload_launches},
                   {"launch_s", sel.launch_s},
                   {"estimated_s", sel.estimated_s},
                   {"budget_s", sel.budget_s},
                   {"limited_by", sel.limited_by},
                   {"warmup_instances", sel.warmup_instances},
                   {"warmup_stages", sel.warmup_stages},
                   {"warmup_kernels", sel.warmup_kernels},
                   {"warmup_ns", sel.warmup_ns},
                   {"kernels", nlohmann::json::array()},
                   {"passes", nlohmann::json::array()},
                   {"notes", sel.notes},
                   {"ranks", sel.ranks},
                   {"rank", sel.rank},
                   {"rank_pid", sel.rank_pid},
                   {"device", sel.device},
                   {"communication",
                    {{"selected", sel.communication},
                     {"left_out_kernels", sel.comm_kernels},
                     {"left_out_launches", sel.comm_launches},
                     {"left_out_ns", sel.comm_ns}}},
                   {"replay", sel.replay},
                   {"communicator_peers", sel.communicator_peers}};
  if (sel.growing_kernels > 0) {
    j["growing"] = {
        {"kernels", sel.growing_kernels}, {"configs", sel.growing_configs}, {"represented_pct", sel.represented_pct}};
  }
  for (const auto& k : sel.kernels) {
    j["kernels"].push_back({{"name", k.name},
                            {"mangled", k.mangled},
                            {"launches", k.launches},
                            {"total_ns", k.total_ns},
                            {"share_pct", k.share_pct},
                            {"filter", k.filter},
                            {"configs", k.configs},
                            {"profiled", k.profiled},
                            {"covered_ns", k.covered_ns}});
    if (k.sampled) {
      j["kernels"].back()["growing"] = {
          {"dimension", k.growing_dim}, {"family_configs", k.family_configs}, {"measured_ns", k.measured_ns}};
    }
  }
  for (const auto& p : sel.passes) {
    j["passes"].push_back({{"kernels", p.kernels},
                           {"filter", p.filter},
                           {"profiled_kernel_rows", p.profiled_rows},
                           {"estimated_s", p.estimated_s}});
    if (!p.kernel_id.empty()) j["passes"].back()["kernel_id"] = p.kernel_id;
    if (p.skip >= 0) {
      j["passes"].back()["launch_skip"] = p.skip;
      j["passes"].back()["launch_count"] = p.count;
    }
  }
  if (sel.name_base != "mangled") j["kernel_name_base"] = sel.name_base;  // a trace run's: linked by matching
  return j;
}

}  // namespace kscope::capture
