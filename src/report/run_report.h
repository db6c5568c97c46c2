// The report of one run, as data: every number of `kscope report` in one typed struct,
// RunReport, built from the analyses' typed results (BuildRunReport). Its views are siblings
// that render the struct: report.json (ToJson, report/run_report_json.h, the only place the
// file's keys are spelled), the terminal summary and report.md (report/report_text.h) and
// report.html with its charts' data (report/html_report.h).
//
// Sources: the run's nsys data (its timeline, stages and kernels) and its ncu data (classes,
// roofline, FLOPs). A run made by `kscope profile --discovery D` holds only ncu data; its
// timeline is the discovery run D's, which the report names.
//
// A part is added as a member with its own struct (built by its own step, written by its own
// ToJson helper); parts that not every run has are optional or empty, so the parts per rank of
// a multi-GPU job (a `ranks` list, a `straggler` verdict) can join as members of their own.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernels/bottleneck.h"
#include "analysis/options.h"
#include "analysis/stages/stage_gpu_metrics.h"
#include "analysis/stages/stage_mfu.h"
#include "analysis/stages/stage_steady.h"
#include "analysis/stages/stages.h"
#include "analysis/timeline/rank_figures.h"
#include "analysis/timeline/ranks.h"
#include "analysis/timeline/timeline.h"
#include "report/critical_path_part.h"
#include "report/iteration_part.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::report {

// 2: run.nsys_version became run.nsys_export_version and run.nsys_tool_version.
inline constexpr int kReportVersion = 2;

// The run and its manifest; `manifest.gpu` falls back to the timeline run's GPU.
struct RunPart {
  int64_t id = 0;
  store::Manifest manifest;
  std::string status;
  std::string imported_at;
  int64_t timeline_run = 0;  // the run whose nsys data the report reads (TimelineRun)
  // "PyTorch profiler trace" when that run's timeline came from Kineto traces (its source
  // files' format, kineto-trace); unset for an nsys export.
  std::optional<std::string> source{};
  std::optional<analysis::RunRank> rank{};  // the report of this rank alone (--rank); none: of the run
};

// The run's totals: the whole timeline's and the ncu launches'.
struct SummaryPart {
  int64_t wall_ns = 0, kernel_ns = 0, memop_ns = 0, gpu_busy_ns = 0;
  double gpu_busy_pct = 0;
  int64_t kernels = 0, memops = 0, api_calls = 0;
  int64_t profiled_launches = 0, profiled_kernels = 0;
};

// The whole run's timeline diagnosis, from the first GPU or API event to the last.
struct TimelinePart {
  int64_t start_ns = 0, end_ns = 0;
  analysis::TimelineDiagnosis diagnosis;  // windows: the whole run
};

// What ncu says of a kernel, by KernelMatchKey of its name (ncu and nsys spell names
// differently): the class and top stall of its longest profiled launch group; occupancy
// averaged over its profiled launches, SM and DRAM throughput and the hit rates weighted by
// each launch's duration.
struct KernelVerdict {
  std::string bottleneck;
  std::optional<double> achieved_occupancy_pct{}, sm_pct{}, dram_pct{}, l1_hit_pct{}, l2_hit_pct{};
  std::string top_stall;
  std::string why;                       // the class's evidence in one sentence
  std::vector<std::string> rests_on;     // the metrics the class rests on
  std::optional<double> stalls_total{};  // every measured stall reason together ...
  std::string stall_unit;                // ... in "cycles/issue" or "% of active warps"
  // The breakdown: every measured reason of the same launch, largest first, its value in
  // stall_unit as ncu gives it and its share of stalls_total (% of the stalled warp cycles).
  std::vector<analysis::Stall> stalls{};
  std::string ncu_name{};  // the kernel's name as ncu gives it (of the launch group that decided the class)
  double profiled_ns = 0;
  int64_t profiled_launches = 0;
};

// One of the run's top kernels by nsys's kernel time, with ncu's verdict when profiled.
struct TopKernel {
  int64_t rank = 0;
  std::string name{}, base{}, family{}, library{};
  std::string short_name{};  // unique within the report (analysis/names/short_names.h)
  int64_t launches = 0, total_ns = 0;
  double avg_ns = 0, share_pct = 0;
  std::optional<KernelVerdict> verdict{};  // none when ncu did not profile it; figures not finite are absent
  // The share of its GPU time in the report's steps that lies on their critical path
  // (critical_path); none without steps, or when it ran in none of them.
  std::optional<double> path_pct{};
  // What a step saves were its launches twice as fast (critical_path's steps, replayed); 0 for
  // a kernel off the path; none where path_pct is none.
  std::optional<KernelWorth> worth_2x{};
};

// A kernel ncu profiled, in the top kernels or not, with its verdict: what the evidence
// views (report.md, report.html, the terminal's stall lines) show, by profiled time.
struct ProfiledKernel {
  std::string name;               // nsys's spelling where the run's timeline has it, else ncu's
  std::string short_name{};       // unique within the report
  std::optional<int64_t> rank{};  // its place among the top kernels, if it is one
  KernelVerdict verdict{};
};

// Kernel time of one bottleneck class ("not profiled" for kernels without ncu data).
struct BottleneckShare {
  std::string bottleneck;
  int64_t total_ns = 0;
  double share_pct = 0;
  int64_t kernels = 0;
};

// A profiled kernel shape's mean position on the roofline, for one precision.
struct RooflinePoint {
  std::string kernel, base, family;
  std::string short_name{};  // of `kernel`, unique within the report
  std::array<int64_t, 3> grid{}, block{};
  int64_t launches = 0;
  std::string precision;
  double intensity = 0, achieved_flops = 0, peak_flops = 0, peak_dram_bytes_per_s = 0, ridge = 0, pct_of_roof = 0;
  std::string bottleneck;
};

// A precision's roof: the median over the profiled launches.
struct Roof {
  std::string precision;
  double peak_flops = 0, peak_dram_bytes_per_s = 0, ridge = 0;
};

struct RooflinePart {
  std::vector<RooflinePoint> points;
  std::vector<Roof> roofs;
};

// One of a stage's five largest kernels.
struct StageKernelRow {
  std::string name, family;
  std::string short_name{};  // unique within the report
  int64_t launches = 0, total_ns = 0;
  double share_pct = 0;                   // of the stage's kernel time
  std::optional<std::string> bottleneck;  // absent when ncu did not profile it
};

// Work that other threads of the process launched while the stage was open.
struct OtherThreadsPart {
  int64_t ops = 0, kernel_ns = 0, memop_ns = 0;
  std::vector<analysis::StageThread> threads;
};

// The backward pass of the stage's forward ops (PyTorch's autograd ranges).
struct BackwardPart {
  int64_t ops = 0, kernel_ns = 0, memop_ns = 0;
  std::vector<analysis::BackwardOfOp> by_forward_op;
};

// An NVTX stage: nsys's figures, the work inside, its steady state, the diagnosis of its
// steady windows, its top kernels and MFU/MBU.
struct StagePart {
  int id = 0;
  std::string name, display_name, text, domain, style;
  std::optional<int> parent{};
  int depth = 0;
  int64_t instances = 0, range_ns = 0, proj_instances = 0, proj_range_ns = 0, proj_ns = 0, gpu_ops = 0;
  int64_t ops = 0, kernels = 0, kernel_ns = 0, memops = 0, memop_ns = 0;
  OtherThreadsPart other_threads{};
  std::optional<BackwardPart> backward_of_forward{};
  analysis::StageSteady steady{};
  int64_t gpu_busy_ns = 0;
  double gpu_busy_pct = 0, median_kernel_us = 0, launches_per_s = 0;
  std::vector<StageKernelRow> top_kernels{};
  analysis::StageMfu mfu{};
  // nsys's GPU metrics sampled over the steady windows (absent: the run has none).
  std::optional<analysis::SampledGpuMetrics> gpu_metrics{};
  std::vector<analysis::Finding> findings{};
};

// A stage as one rank ran it, on its own GPU: its instances there, the first one's and the
// steady ones' wall time, the GPU busy share and MFU/MBU of those (against one GPU's peak).
struct RankStagePart {
  std::string stage;  // display name
  int depth = 0;
  int64_t instances = 0, steady = 0, first_wall_ns = 0;
  double median_wall_ns = 0, gpu_busy_pct = 0;
  std::optional<double> mfu_pct, mbu_pct;
  std::string mfu_source;  // "ncu" or "model"; "" without MFU
};

// A multi-GPU job's rank (a process that launched kernels, run_rank) with its own figures:
// compute and communication kernel time, exposed communication, collectives, stage times
// (RankFigures); and the per-GPU figures of the rank's own report (BuildRunReport with the
// rank): its GPU's busy share, its stages and its largest kernels.
struct RankPart : analysis::RankFigures {
  int64_t wall_ns = 0, gpu_busy_ns = 0;
  double gpu_busy_pct = 0;
  std::vector<RankStagePart> gpu_stages;  // as the rank's report orders them
  std::vector<TopKernel> top_kernels;     // its five largest by time
};
// The rank the others wait for at their collectives, by how much, and what to do.
using StragglerPart = analysis::Straggler;

struct RunReport {
  RunPart run;
  // Set when kscope profile did not finish the run: what stopped and what is missing; every
  // view shows it first.
  std::optional<std::string> incomplete;
  SummaryPart summary;
  TimelinePart timeline;
  std::vector<StagePart> stages;
  std::vector<TopKernel> top_kernels;
  std::vector<ProfiledKernel> profiled;  // every profiled kernel, most profiled time first
  std::vector<BottleneckShare> bottleneck_mix;
  RooflinePart roofline;
  std::vector<std::string> notes;  // what the numbers leave out, one sentence each
  // A run of several ranks only (empty, and absent from report.json, for one process):
  std::vector<RankPart> ranks;
  std::optional<StragglerPart> straggler;
  // The run's loop and phases (report/iteration_part.h):
  std::optional<HeadlinePart> headline;
  std::optional<IterationPart> iterations;  // runs without NVTX stages where a loop was found
  std::vector<analysis::RunPhase> phases;   // empty without a loop or stages
  WorkloadPart workload;
  // What one step waits on; none without repeating steps (or for one rank's report). With it,
  // top_kernels are ordered by their time on the critical path (total_ns * path_pct).
  std::optional<CriticalPathPart> critical_path;
};

// Gives every kernel the report names (top kernels, stages' and ranks' top kernels, roofline
// points, profiled kernels) its short name, unique over the whole report: one name, one short name.
void AddShortNames(RunReport& report);

// `rank`: the report of that rank alone (every figure from its process's events: RankSelection);
// a rank the run does not have is an error naming those it has.
Result<RunReport> BuildRunReport(store::Store& store, int64_t run_id, const analysis::AnalysisOptions& config,
                                 std::optional<int64_t> rank = std::nullopt);

// The run whose nsys data a run's report reads: the run itself, or the discovery run its ncu
// launches are linked to (kscope profile --discovery).
Result<int64_t> TimelineRun(store::Store& store, int64_t run_id);

// The same report with every string and map key as DisplayText (util/display_text.h) shows
// it: what the terminal, report.md and report.html show, and report.html embeds.
RunReport ForDisplay(const RunReport& report);

}  // namespace kscope::report
