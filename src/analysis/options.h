// The options the analyses own: the bottleneck classes' thresholds, the timeline's, the
// atlas's, how stages are summarised and the model behind the FLOP count. config/config.h
// aggregates them with the other layers' options under the keys classify.*, timeline.*,
// atlas.*, stages.* and model.* (declared, with their meaning, in config/config_keys.cc).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "analysis/atlas/thresholds.h"
#include "analysis/kernels/bottleneck.h"
#include "analysis/timeline/timeline.h"

namespace kscope::analysis {

// What the model FLOP count needs (stages/model_flops.h): the model, and what each NVTX
// stage does with it.
struct ModelOptions {
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

// How stages are summarised (stages/stage_steady.h).
struct StagesOptions {
  int64_t warmup = 1;  // instances of each stage left out of MFU and verdicts as warm-up
};

struct AnalysisOptions {
  ClassifyThresholds classify;
  TimelineThresholds timeline;
  atlas::AtlasThresholds atlas;
  StagesOptions stages;
  ModelOptions model;
};

}  // namespace kscope::analysis
