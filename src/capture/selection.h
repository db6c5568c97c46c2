// Which kernels the deep (ncu) pass profiles, and which of their launches: chosen from the
// discovery (nsys) run in the store. The top kernels by GPU time until a coverage target,
// optionally among the kernels launched inside one NVTX stage. A kernel launched with
// several shapes (the same GEMM for the q, k and v projections) does different work in
// each, so launches are picked per launch configuration (kernel, grid, block, dynamic
// shared memory): ncu's --filter-mode per-launch-config applies --launch-skip (the warm-up)
// and --launch-count to each configuration, so one ncu run with an alternation of all the
// selected kernels profiles representative launches of every shape. The discovery run
// shows the launch order, so kscope knows which launch each ncu result is.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "capture/options.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::capture {

struct SelectedKernel {
  std::string name;  // demangled, as nsys shows it
  // The identity ncu filters on (Selection::name_base): the mangled name, or, for a discovery
  // run that has none (a PyTorch profiler trace names kernels demangled), the function name
  // ncu prints ("elementwise_kernel").
  std::string mangled;
  int64_t launches = 0;  // launches in scope (the stage, or the whole run)
  int64_t total_ns = 0;  // their GPU time
  double share_pct = 0;  // of all kernel time in scope
  double cumulative_pct = 0;
  int64_t configs = 0;        // distinct launch configurations in scope
  int64_t profiled = 0;       // launches picked for ncu (per configuration, after warm-up)
  int64_t covered_ns = 0;     // GPU time in scope of the configurations that get picks
  std::string filter;         // this kernel alone: the ncu --kernel-name value (regex:^...$)
  std::vector<int64_t> rows;  // its launches in scope, launch order (kernel stream rows)
  // A growing shape: its configurations that differ only in `growing_dim` are sampled.
  bool sampled = false;
  std::string growing_dim;     // "grid x", "block y", "dynamic shared memory", ...
  int64_t family_configs = 0;  // configurations in the growing family
  int64_t measured_ns = 0;     // GPU time in scope of the configurations ncu profiles
};

// One ncu run: its kernels' union filter and the launches it profiles.
struct NcuPass {
  std::vector<size_t> kernels;         // indexes into Selection::kernels
  std::string filter;                  // --kernel-name (regex:^(a|b)$)
  std::vector<int64_t> profiled_rows;  // kernel stream row of each profiled launch, in ncu's order
  std::vector<size_t> row_kernels;     // the kernel (index into kernels) of each, as SplitPasses planned it
  // A window over a growing shape's sizes: ncu's global count over this run's kernels skips
  // `skip` launches and profiles `count` (-1: the selection's per-configuration skip and count).
  int64_t skip = -1, count = -1;
  // Every sampled size in one run: ncu --kernel-id ::<filter>:<invocations> (each kernel's n-th
  // launches, counted per kernel) instead of --kernel-name; "" : --kernel-name `filter`.
  std::string kernel_id;
  bool kill = false;       // ncu --kill yes: the workload ends after the run's last profiled launch
  double estimated_s = 0;  // this run's estimated time (Selection::estimated_s)
};

struct Selection {
  std::string stage;                              // selection.stage as given ("" : the whole run)
  std::string target;                             // selection.kernel as given ("": the top kernels by time)
  std::vector<std::string> nvtx_exclude;          // ncu --nvtx-exclude values
  std::string filter_mode = "per-launch-config";  // ncu --filter-mode: what --launch-skip/-count count
  // ncu --kernel-name-base: "mangled", or "function" when the discovery run lacks the mangled
  // names of its C++ kernels (a trace run); ncu then profiles every kernel of a selected
  // function name, and its launches are linked by matching, not by their place in the plan.
  std::string name_base = "mangled";
  int64_t passes_per_launch = 0;  // ncu replay passes one launch is estimated to take
  double app_s = 0;               // the workload's span of CUDA calls in the discovery run
  double workload_s = 0;          // its own wall time (selection.workload_s; else app_s)
  int64_t workload_launches = 0;  // its kernel launches, each of which ncu intercepts
  double launch_s = 0;            // what ncu adds to a launch it does not profile
  // Estimated ncu time: per ncu run, the workload (up to the last profiled launch where ncu ends
  // it) and ncu's cost on its unprofiled launches; and launches x passes x selection.pass_s.
  double estimated_s = 0;
  double budget_s = 0;        // selection.budget_s
  double pass_s = 0;          // selection.pass_s
  std::string limited_by;     // what ended the selection: coverage, budget, top, kernels
  std::string nvtx_include;   // ncu --nvtx-include value ("" : ungated)
  int64_t scope_kernels = 0;  // kernel launches in scope, warm-up left out
  int64_t scope_ns = 0;       // their GPU time
  double covered_pct = 0;     // share of scope_ns the selected kernels hold
  double deep_pct = 0;        // share of scope_ns in launch configurations that get deep metrics
  int64_t warmup = 0;         // ncu --launch-skip (per launch configuration, or per kernel)
  int64_t launches = 0;       // ncu --launch-count (likewise)
  // Left out of the ranking (not of ncu's counts) as warm-up: what the first
  // `warmup_instances` instances of these top-level stages launched.
  int64_t warmup_instances = 0;
  std::vector<std::string> warmup_stages;
  int64_t warmup_kernels = 0;  // kernel launches
  int64_t warmup_ns = 0;       // their GPU time
  std::vector<SelectedKernel> kernels;
  std::vector<NcuPass> passes;
  std::vector<std::string> notes;  // what the user should know (e.g. why ncu is not NVTX-gated)
  // A job of several processes under one nsys (torchrun, mpirun): each process that launched
  // GPU kernels is a rank, in process order; the selection is one rank's (profile.ncu_rank),
  // and ncu profiles that rank's GPU alone while the others run unprofiled.
  int64_t ranks = 1;     // processes that launched GPU kernels
  int64_t rank = 0;      // the one selected from (its position in process order)
  int64_t rank_pid = 0;  // its process ID (0: a single process)
  int64_t device = -1;   // its GPU, ncu --devices (-1: every GPU, a single process)
  // Communication kernels (analysis/names/communication.h) in scope: left out of the ranking and
  // of the kernel time the coverage counts (selection.communication=off), measured from nsys only.
  bool communication = false;  // selection.communication=on: ranked like any kernel
  int64_t comm_kernels = 0, comm_launches = 0, comm_ns = 0;
  std::string replay;  // ncu --replay-mode the selection needs ("": ncu.replay)
  // ncu --communicator shmem --communicator-shmem-num-peers N: the ranks ncu keeps in step while
  // it replays communication kernels (capture/ncu_communicator.h); 0: none.
  int64_t communicator_peers = 0;
  // Growing shapes (selection.growing_*): kernels whose configurations differing in one
  // dimension are sampled. deep_pct counts a sampled family whole once one of its sizes is
  // measured; represented_pct is the part of it that no ncu launch measured.
  int64_t growing_kernels = 0;
  int64_t growing_configs = 0;  // configurations in their families
  int64_t growing_sizes = 0;    // sizes profiled of each
  double represented_pct = 0;   // share of scope_ns represented by sampled sizes, not measured
};

// `passes_per_launch`: ncu's replay passes per launch for the sections and metrics asked for
// (EstimatedPasses in capture/commands.h); with the budget it bounds how much is selected.
// `warmup_instances`: instances of each repeated top-level stage whose launches are left out
// of the ranking (config stages.warmup, as the stage figures leave them out).
// `ncu_rank`: in a run of several processes with GPU kernels, the one selected from
// (profile.ncu_rank, counted from 0 in process order).
Result<Selection> SelectKernels(store::Store& store, int64_t run_id, const SelectionOptions& cfg,
                                int64_t passes_per_launch, int64_t warmup_instances, int64_t ncu_rank = 0);

// What was selected, for the screen (a few lines and a table) and for manifest.json.
std::string FormatSelection(const Selection& sel);
nlohmann::json SelectionJson(const Selection& sel);

// "3" -> {3, 3}, "3-5" -> {3, 5} (counted from 1); an error for anything else.
Result<std::pair<int64_t, int64_t>> ParseLaunchRange(const std::string& text);

// Helpers, exposed for tests.
std::string EscapeRegex(std::string_view literal);               // every non [A-Za-z0-9_] escaped
std::string UnionFilter(const std::vector<std::string>& names);  // regex:^(a|b)$ of escaped names
// The function name ncu's --kernel-name-base function gives a demangled kernel name: no return
// type, scope, template arguments or parameters ("void at::native::elementwise_kernel<128, 4,
// ...>(int, ...)" -> "elementwise_kernel"); a C name as it is.
std::string NcuFunctionName(std::string_view demangled);

}  // namespace kscope::capture
