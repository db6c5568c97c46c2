#include "analysis/stages/model_flops.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

namespace kscope::analysis {

namespace {

using nlohmann::json;

// Model types whose MLP is gated (three matrices: gate, up, down).
constexpr std::array<std::string_view, 14> kGatedMlp = {"llama", "mistral",   "mixtral",     "qwen2",      "qwen2_moe",
                                                        "qwen3", "qwen3_moe", "gemma",       "gemma2",     "gemma3",
                                                        "phi3",  "olmo",      "deepseek_v2", "deepseek_v3"};
// Model types that end in an LM head (vocab x hidden).
constexpr std::array<std::string_view, 18> kCausalLm = {
    "llama",  "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma",  "gemma2",
    "gemma3", "phi3",    "olmo",    "gpt2",  "gpt_neox",  "gptj",  "opt",       "falcon", "deepseek_v3"};

template <size_t N>
bool OneOf(std::string_view v, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

// The first of `keys` that `j` has as a number.
std::optional<int64_t> IntField(const json& j, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (auto it = j.find(k); it != j.end() && it->is_number()) return it->get<int64_t>();
  }
  return std::nullopt;
}

struct Shapes {
  std::string type;
  int64_t layers = 0, hidden = 0, intermediate = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0;
  int64_t experts = 0, experts_per_token = 0, classes = 0;
  bool gated = false, lm_head = false;
};

// N from the shapes; 0 when they are incomplete.
double MatmulParams(const Shapes& s) {
  if (s.layers <= 0 || s.hidden <= 0 || s.heads <= 0 || s.intermediate <= 0) return 0;
  const double h = static_cast<double>(s.hidden);
  const double head_dim = s.head_dim > 0 ? static_cast<double>(s.head_dim) : h / static_cast<double>(s.heads);
  const double q = static_cast<double>(s.heads) * head_dim;
  const double kv = static_cast<double>(s.kv_heads > 0 ? s.kv_heads : s.heads) * head_dim;
  const double attention = h * q + 2 * h * kv + q * h;
  const double mlp_one = (s.gated ? 3 : 2) * h * static_cast<double>(s.intermediate);
  const double mlp = s.experts > 0 && s.experts_per_token > 0
                         ? static_cast<double>(s.experts_per_token) * mlp_one + h * static_cast<double>(s.experts)
                         : mlp_one;
  double n = static_cast<double>(s.layers) * (attention + mlp);
  if (s.lm_head) n += h * static_cast<double>(s.vocab);
  n += h * static_cast<double>(s.classes);
  return n;
}

Result<Shapes> ReadHfConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{path, "cannot read the model's config.json (model.hf_config)", "check the path"};
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Error{path, "not a JSON object (model.hf_config wants a Hugging Face config.json)", "check the file"};
  }
  Shapes s;
  if (auto t = j.find("model_type"); t != j.end() && t->is_string()) s.type = t->get<std::string>();
  s.layers = IntField(j, {"num_hidden_layers", "n_layer", "num_layers"}).value_or(0);
  s.hidden = IntField(j, {"hidden_size", "n_embd", "d_model"}).value_or(0);
  s.heads = IntField(j, {"num_attention_heads", "n_head"}).value_or(0);
  s.kv_heads = IntField(j, {"num_key_value_heads"}).value_or(s.heads);
  s.head_dim = IntField(j, {"head_dim"}).value_or(0);
  s.intermediate = IntField(j, {"intermediate_size", "n_inner", "ffn_dim"}).value_or(0);
  if (s.intermediate == 0) s.intermediate = 4 * s.hidden;  // GPT-2's n_inner: null means 4 x hidden
  s.vocab = IntField(j, {"vocab_size"}).value_or(0);
  s.experts = IntField(j, {"num_local_experts", "num_experts", "n_routed_experts"}).value_or(0);
  s.experts_per_token = IntField(j, {"num_experts_per_tok", "moe_topk"}).value_or(0);
  if (s.experts > 0 && s.experts_per_token == 0) s.experts_per_token = 1;
  s.gated = OneOf(s.type, kGatedMlp);
  s.lm_head = OneOf(s.type, kCausalLm);
  if (auto labels = j.find("id2label"); labels != j.end() && labels->is_object() && s.type == "vit") {
    s.classes = static_cast<int64_t>(labels->size());
  }
  return s;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool HasWord(const std::string& name, std::initializer_list<std::string_view> words) {
  const std::string n = Lower(name);
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return n.find(w) != std::string::npos; });
}

}  // namespace

Result<std::optional<ModelShape>> ResolveModel(const ModelOptions& m) {
  ModelShape shape;
  Shapes s;
  if (!m.hf_config.empty()) {
    auto read = ReadHfConfig(m.hf_config);
    if (!read.ok()) return read.error();
    s = *read;
    shape.source = "hf_config " + m.hf_config;
  }
  // The configuration's own keys win over the file's.
  auto set = [](int64_t& to, int64_t v) {
    if (v > 0) to = v;
  };
  set(s.layers, m.layers);
  set(s.hidden, m.hidden);
  set(s.intermediate, m.intermediate);
  set(s.heads, m.heads);
  set(s.kv_heads, m.kv_heads);
  set(s.vocab, m.vocab);
  set(s.experts, m.experts);
  set(s.experts_per_token, m.experts_per_token);
  if (m.hf_config.empty()) {
    s.gated = true;  // the keys describe a Llama-style decoder (config.h)
    s.lm_head = m.vocab > 0;
  }
  shape.type = s.type;
  shape.layers = s.layers;
  shape.hidden = s.hidden;
  if (m.params > 0) {
    shape.params = m.params;
    shape.source = "model.params";
  } else if (m.flops_per_item > 0) {
    shape.flops_per_item = m.flops_per_item;
    shape.source = "model.flops_per_item";
  } else {
    shape.params = MatmulParams(s);
    if (shape.params <= 0) return std::optional<ModelShape>();
    if (shape.source.empty()) shape.source = "shapes";
  }
  return std::optional<ModelShape>(shape);
}

std::optional<Pass> StagePass(const ModelOptions& model, const std::string& stage) {
  if (auto it = model.stage_passes.find(stage); it != model.stage_passes.end()) {
    const std::string p = Lower(it->second);
    if (p == "forward") return Pass::kForward;
    if (p == "backward") return Pass::kBackward;
    if (p == "training") return Pass::kTraining;
    return std::nullopt;
  }
  if (HasWord(stage, {"backward", "bwd"})) return Pass::kBackward;
  if (HasWord(stage, {"step", "train", "iteration"})) return Pass::kTraining;
  if (HasWord(stage, {"forward", "fwd", "prefill", "decode", "generate", "encode", "infer", "eval"})) {
    return Pass::kForward;
  }
  return std::nullopt;
}

std::vector<ModelFlops> StageModelFlops(const ModelShape& shape, const ModelOptions& model, const std::string& stage) {
  auto tokens_it = model.stage_tokens.find(stage);
  const auto pass = StagePass(model, stage);
  if (tokens_it == model.stage_tokens.end() || tokens_it->second <= 0 || !pass) return {};
  const double tokens = static_cast<double>(tokens_it->second);
  // Multiples of the forward pass: forward 1, backward 2, training 3.
  const double passes = *pass == Pass::kForward ? 1 : *pass == Pass::kBackward ? 2 : 3;
  const std::string k = fmt::format("{:g}", 2 * passes);  // 2, 4 or 6
  std::vector<ModelFlops> out;
  if (shape.flops_per_item > 0) {
    out.push_back({fmt::format("{} x forward", passes),
                   fmt::format("{:g} x {:.4g} FLOPs x {:g} items", passes, shape.flops_per_item, tokens),
                   passes * shape.flops_per_item * tokens});
    return out;
  }
  const double dense = 2 * passes * shape.params * tokens;
  out.push_back({k + "N", fmt::format("{} x {:.4g} params x {:g} tokens", k, shape.params, tokens), dense});
  auto ctx = model.stage_context.find(stage);
  if (ctx != model.stage_context.end() && ctx->second > 0 && shape.layers > 0 && shape.hidden > 0) {
    const double a = 4 * passes * static_cast<double>(shape.layers) * static_cast<double>(shape.hidden) *
                     static_cast<double>(ctx->second) * tokens;
    const std::string terms = fmt::format("{:g} x {} layers x {} hidden x {} context x {:g} tokens", 4 * passes,
                                          shape.layers, shape.hidden, ctx->second, tokens);
    out.push_back({k + "N + attention", fmt::format("{} + {}", out.front().formula, terms), dense + a});
    out.push_back(
        {k + "N + causal attention", fmt::format("{} + half of {}", out.front().formula, terms), dense + a / 2});
    if (model.recompute == "full" && *pass != Pass::kForward) {
      const double extra = 2 * shape.params * tokens + a / passes;
      out.push_back(
          {"hardware (recompute)", fmt::format("{} + one more forward pass", out[1].formula), dense + a + extra});
    }
  } else if (model.recompute == "full" && *pass != Pass::kForward) {
    out.push_back({"hardware (recompute)", fmt::format("{} + one more forward pass", out.front().formula),
                   dense + 2 * shape.params * tokens});
  }
  return out;
}

}  // namespace kscope::analysis
