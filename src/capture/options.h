// The options of kscope profile that the capture layer owns: the run directories and time
// limits, nsys's recording, the selection of kernels and ncu's deep pass. config/config.h
// aggregates them with the other layers' options under the keys profile.*, nsys.*,
// selection.* and ncu.* (declared, with their meaning, in config/config_keys.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/options.h"

namespace kscope::capture {

struct ProfileOptions {
  std::string runs_dir = "runs";      // run directories: <runs_dir>/<run-id>/{nsys,ncu,logs}
  int64_t keep_runs = 20;             // run directories kept as they are; older ones: old_runs
  std::string old_runs = "compress";  // compress (zstd, each file) | delete | keep
  double nsys_timeout_s = 3600;       // time limit of the nsys run (0: none)
  double ncu_timeout_s = 7200;        // time limit of each ncu run (0: none)
  double ncu_stall_timeout_s = 120;   // stop an ncu run that is this long inside one launch without progress (0: never)
  int64_t rank = -1;                  // wrapper mode: profile only this MPI/torchrun rank (-1: off)
  int64_t rank_ncu_runs = 1;          // wrapper mode: ncu runs of the profiled rank (every rank runs the workload
                                      // 1 + this many times)
  int64_t ncu_rank = 0;               // a job under one nsys (torchrun, mpirun): the rank ncu profiles
  std::string cache_dir;              // what ncu offers, kept per version and GPU ("": ~/.cache/kscope)
  double max_trace_mb = 4096;         // largest nsys report kscope exports and imports (0: no cap)

  // A job of several ranks under kernel replay (capture/ncu_stall_retry.h): the watchdog's limit
  // inside one launch when shorter than ncu_stall_timeout_s, and the ncu runs that retry the
  // launches a stopped run did not reach (0: none).
  double ncu_rank_stall_timeout_s = 30;
  int64_t ncu_stall_retries = 2;
  // A job of several ranks under kernel replay: on, ncu runs in the profiled rank alone
  // (capture/ncu_rank_gate.h); off, ncu runs over the whole job.
  std::string ncu_rank_gate = "on";
};

struct NsysOptions {
  std::string trace = "cuda,nvtx,osrt";
  std::string sample = "none";
  std::string cuda_graph_trace = "node";  // graph launches appear as their kernels
  std::string capture_range;              // NVTX range: record only inside it (--capture-range=nvtx)
  std::string pytorch;                    // nsys --pytorch: "" (off), autograd-nvtx, autograd-shapes-nvtx
  int64_t duration_s = 0;                 // nsys --duration: stop recording after this many seconds (0: off)
  std::string gpu_metrics = "on";         // on: nsys samples the GPUs' metrics (--gpu-metrics-devices=all)
  int64_t gpu_metrics_hz = 1000;          // ... this many times a second (--gpu-metrics-frequency)
  std::vector<std::string> extra_args;
};

struct SelectionOptions {
  double coverage_pct = 90;  // select top kernels until they cover this share of kernel time
  double budget_s = 600;     // ... while the estimated ncu time stays within this (0: no limit)
  double pass_s = 0.036;     // estimated seconds of one ncu replay pass of one launch
  int64_t top = 0;           // ... and at most this many kernels (0: no cap)
  // The kernel that completes the coverage: cheapest, the one with the fewest launches to profile
  // among those whose time alone completes it; next, the next kernel by time.
  std::string last_kernel = "cheapest";
  std::string stage;                // NVTX range: select among kernels launched inside it, gate ncu on it
  int64_t warmup = 1;               // launches of each launch configuration skipped before the profiled ones
  int64_t launches = 1;             // launches of each launch configuration to profile
  int64_t max_pass_launches = 500;  // launches one ncu run may profile before the picks are split
  // Targeted profiling: the kernels you name instead of the top ones.
  std::string kernel;                   // a substring of the demangled name, or regex:EXPR
  std::string launch;                   // "" (warmup, then launches), "N" or "N-M": which launches, from 1
  std::string launch_scope = "config";  // config: counted per launch configuration; kernel: per kernel
  std::vector<std::string> exclude;     // NVTX ranges whose launches are left out (ncu --nvtx-exclude)
  std::string communication = "off";    // on: communication kernels (NCCL, ...) are selected like any other
  // Growing shapes: a kernel with at least `growing_configs` launch configurations that differ
  // only in one dimension (a cache that grows by a token per step) gets `growing_samples`
  // representative sizes profiled instead of every configuration (0: off).
  int64_t growing_configs = 8;
  int64_t growing_samples = 3;
  // How the sampled sizes are profiled: kernel-id, all of them in one ncu run that picks each
  // sample by its invocation number (--kernel-id) and ends the workload after the last one
  // (--kill); windows, an ncu run per sample (ncu versions without invocation expressions).
  std::string growing_run = "kernel-id";
  // The estimate of each ncu run's own time: the workload's wall time outside ncu (0: its span
  // of CUDA calls in the discovery run; kscope profile sets it from its nsys pass), and what ncu
  // adds to every launch it does not profile.
  double workload_s = 0;
  double launch_us = 107;
};

struct NcuOptions {
  std::string mode = "quick";          // quick | deep | roofline | full: which sections (docs/profile.md)
  std::string set;                     // an ncu section set (--set), instead of the mode's sections
  std::vector<std::string> metrics;    // more metrics (--metrics), checked against what ncu offers
  std::string replay = "kernel";       // kernel | application
  std::string clock_control = "base";  // base (locked to base clocks) | none
  std::string cache_control = "all";   // all (flush caches before each pass) | none
  std::string target_processes = "all";
  std::vector<std::string> sections;  // more sections on top of the mode's
  std::string flops = "on";           // on: collect the FLOP counters (MFU, roofline) with any mode
  std::string stalls = "on";          // on: the warp-stall breakdown (WarpStateStats) with every mode
  std::string import = "native";      // native: kscope reads each report | export: ncu exports its pages
  std::vector<std::string> extra_args;
};

// What a profile needs: its own options, and the analyses' (the stages' warm-up for the
// selection, the model's name and dtype for the manifest).
struct CaptureOptions : analysis::AnalysisOptions {
  ProfileOptions profile;
  NsysOptions nsys;
  SelectionOptions selection;
  NcuOptions ncu;
};

}  // namespace kscope::capture
