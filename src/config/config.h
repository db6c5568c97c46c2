// kscope's configuration: one YAML file (the users know Hydra), dotted overrides on the
// command line (`ncu.mode=deep selection.top=30`), and sweeps over a matrix of values.
// Every key is declared once in config.cc with its type, default and meaning;
// docs/config.md is generated from that table (`kscope config --keys`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/atlas/thresholds.h"
#include "analysis/kernels/bottleneck.h"
#include "analysis/timeline/timeline.h"
#include "util/status.h"

namespace kscope::config {

struct ProfileConfig {
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
};

struct NsysConfig {
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

struct SelectionConfig {
  double coverage_pct = 90;         // select top kernels until they cover this share of kernel time
  double budget_s = 600;            // ... while the estimated ncu time stays within this (0: no limit)
  double pass_s = 0.05;             // estimated seconds of one ncu replay pass of one launch
  int64_t top = 0;                  // ... and at most this many kernels (0: no cap)
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
};

struct NcuConfig {
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

// What the model FLOP count needs (analysis/stages/model_flops.h): the model, and what each NVTX
// stage does with it.
struct ModelConfig {
  std::string name, dtype;
  std::string hf_config;      // a Hugging Face config.json: the shapes below, read from it
  double params = 0;          // parameters in matrix multiplies (0: from the shapes below)
  double flops_per_item = 0;  // forward FLOPs per token or item, for models the shapes do not describe (CNNs)
  int64_t layers = 0, hidden = 0, intermediate = 0, heads = 0, kv_heads = 0, vocab = 0;
  int64_t experts = 0, experts_per_token = 0;  // mixture of experts: experts per layer, routed per token
  int64_t batch = 0;
  std::string recompute = "none";                   // none | full: activations recomputed in the backward pass
  std::map<std::string, int64_t> stage_tokens;      // tokens (or items) one instance of each stage processes
  std::map<std::string, int64_t> stage_context;     // mean attention context per stage (keys each query attends to)
  std::map<std::string, int64_t> stage_steps;       // forward passes per stage instance (weights read once each)
  std::map<std::string, std::string> stage_passes;  // forward | backward | training, per stage
};

// How stages are summarised (analysis/stages/stage_steady.h).
struct StagesConfig {
  int64_t warmup = 1;  // instances of each stage left out of MFU and verdicts as warm-up
};

struct Config {
  ProfileConfig profile;
  NsysConfig nsys;
  SelectionConfig selection;
  NcuConfig ncu;
  analysis::ClassifyThresholds classify;
  analysis::TimelineThresholds timeline;
  analysis::atlas::AtlasThresholds atlas;
  StagesConfig stages;
  ModelConfig model;
  // sweep: key -> values; a key is a config key (dotted) or a name the command uses as {name}
  std::map<std::string, std::vector<std::string>> sweep;
};

// The defaults, then `path` (if not empty), then each override "a.b=value" (value in YAML:
// 30, deep, [a, b]). An unknown key or a value of the wrong type is an error naming it.
Result<Config> LoadConfig(const std::string& path, const std::vector<std::string>& overrides = {});

// One override more, on a loaded config ("ncu.mode=deep"); sweeps use it for each point.
Status ApplyOverride(Config& config, const std::string& assignment);

// The effective configuration as YAML (recorded in each run's directory).
std::string ToYaml(const Config& config);

// Markdown table of every key: name, type, default, meaning (docs/config.md).
std::string KeysMarkdown();

}  // namespace kscope::config
