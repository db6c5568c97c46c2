// kscope's configuration: one YAML file (the users know Hydra), dotted overrides on the
// command line (`ncu.mode=deep selection.top=30`), and sweeps over a matrix of values.
// Every key is declared once in config.cc with its type, default and meaning;
// docs/config.md is generated from that table (`kscope config --keys`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/bottleneck.h"
#include "analysis/timeline.h"
#include "util/status.h"

namespace kscope::config {

struct ProfileConfig {
  std::string runs_dir = "runs";      // run directories: <runs_dir>/<run-id>/{nsys,ncu,logs}
  int64_t keep_runs = 20;             // run directories kept as they are; older ones: old_runs
  std::string old_runs = "compress";  // compress (zstd, each file) | delete | keep
  double nsys_timeout_s = 3600;       // time limit of the nsys run (0: none)
  double ncu_timeout_s = 7200;        // time limit of each ncu run (0: none)
  int64_t rank = -1;                  // wrapper mode: profile only this MPI/torchrun rank (-1: off)
};

struct NsysConfig {
  std::string trace = "cuda,nvtx,osrt";
  std::string sample = "none";
  std::string cuda_graph_trace = "node";  // graph launches appear as their kernels
  std::string capture_range;              // NVTX range: record only inside it (--capture-range=nvtx)
  std::vector<std::string> extra_args;
};

struct SelectionConfig {
  double coverage_pct = 90;         // select top kernels until they cover this share of kernel time
  int64_t top = 20;                 // ... but at most this many
  std::string stage;                // NVTX range: select among kernels launched inside it, gate ncu on it
  int64_t warmup = 2;               // launches of each kernel skipped before the profiled ones
  int64_t launches = 3;             // launches of each selected kernel to profile
  int64_t max_pass_launches = 200;  // launches one ncu run may profile before the picks are split
};

struct NcuConfig {
  std::string mode = "quick";          // quick | deep | roofline: which sections (docs/profile.md)
  std::string replay = "kernel";       // kernel | application
  std::string clock_control = "base";  // base (locked to base clocks) | none
  std::string cache_control = "all";   // all (flush caches before each pass) | none
  std::string target_processes = "all";
  std::vector<std::string> sections;  // more sections on top of the mode's
  std::vector<std::string> extra_args;
};

// What the analytic FLOP count of a transformer needs (issue: MFU per stage).
struct ModelConfig {
  std::string name, dtype;
  double params = 0;  // parameters in matrix multiplies (0: from the shapes below)
  int64_t layers = 0, hidden = 0, intermediate = 0, heads = 0, kv_heads = 0, vocab = 0;
  int64_t batch = 0;
  std::map<std::string, int64_t> stage_tokens;   // tokens processed by each NVTX stage, e.g. decode: 32
  std::map<std::string, int64_t> stage_context;  // mean attention context length per stage
  std::map<std::string, int64_t> stage_steps;    // forward passes per stage (weights read once each)
};

struct Config {
  ProfileConfig profile;
  NsysConfig nsys;
  SelectionConfig selection;
  NcuConfig ncu;
  analysis::ClassifyThresholds classify;
  analysis::TimelineThresholds timeline;
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
