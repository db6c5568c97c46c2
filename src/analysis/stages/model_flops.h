// Model FLOPs as practitioners count them for MFU, beside the hardware FLOPs ncu measures.
//
// N is the number of parameters in matrix multiplies that a token passes through: the
// attention projections (q, k, v, o; grouped-query attention shrinks k and v), the MLP (three
// matrices when gated, as in Llama; two otherwise; for a mixture of experts the experts a
// token is routed to, and the router), and the output projection (the LM head, or a
// classifier). Embedding lookups are not multiplies and are left out. With T tokens, L layers,
// hidden size d and an attention context of C tokens (the keys each query attends to):
//   forward:  2 N T                  (a multiply-add is 2 FLOPs)
//   backward: 4 N T                  (gradients of activations and of weights)
//   training: 6 N T                  (forward and backward)
//   attention adds 4 L d C T forward (QK^T and AV), 8 backward, 12 for training (PaLM's
//   12 L d C per token); a causal mask halves it (FlashAttention's convention);
//   recomputed activations add one forward pass to the hardware count (Megatron's 8N).
// A model the shapes do not describe (a CNN) gives its forward FLOPs per item instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/options.h"
#include "util/status.h"

namespace kscope::analysis {

struct ModelShape {
  std::string type;   // model_type of the config ('llama', 'vit', ...), or ''
  double params = 0;  // N: parameters in matrix multiplies (active ones for a mixture of experts)
  int64_t layers = 0, hidden = 0;
  double flops_per_item = 0;  // forward FLOPs per item, when given instead of shapes
  std::string source;         // how N was found: 'model.params', 'shapes', 'hf_config PATH'
};

// The shape from the configuration: model.params, else model.flops_per_item, else the
// shapes (model.layers, hidden, ... or model.hf_config's config.json). nullopt when the
// configuration describes no model; an error when hf_config cannot be read.
Result<std::optional<ModelShape>> ResolveModel(const ModelOptions& model);

enum class Pass { kForward, kBackward, kTraining };

// What a stage runs: model.stage_passes, else its name (backward/bwd: backward; step, train:
// training; forward, fwd, prefill, decode, generate, encode, infer, eval: forward).
std::optional<Pass> StagePass(const ModelOptions& model, const std::string& stage);

struct ModelFlops {
  std::string name;     // '6N', '6N + attention', '6N + causal attention', 'hardware (recompute)'
  std::string formula;  // how it was counted, with the numbers
  double flops = 0;     // per instance of the stage
};

// The model FLOPs of one instance of `stage` (model.stage_tokens and stage_context are per
// instance); empty when the stage's tokens or pass are unknown.
std::vector<ModelFlops> StageModelFlops(const ModelShape& shape, const ModelOptions& model, const std::string& stage);

}  // namespace kscope::analysis
