#include "config/config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <variant>

#include "util/closest.h"

namespace kscope::config {

namespace {

using Ref = std::variant<std::string*, double*, int64_t*, std::vector<std::string>*, std::map<std::string, int64_t>*,
                         std::map<std::string, std::string>*>;

struct Key {
  std::string_view name;
  std::string_view doc;
  std::vector<std::string_view> choices;  // allowed values of a string key; empty: any
  Ref (*ref)(Config&);
  bool path = false;  // a file: relative to the configuration file that names it
};

// Every configuration key, once. Defaults are the member initializers in config.h.
const std::vector<Key>& Keys() {
  static const std::vector<Key> kKeys{
      {"profile.runs_dir",
       "folder of the run directories (<runs_dir>/<run-id>/{nsys,ncu,logs})",
       {},
       +[](Config& c) -> Ref { return &c.profile.runs_dir; }},
      {"profile.keep_runs",
       "run directories kept as they are; older ones are handled as profile.old_runs say",
       {},
       +[](Config& c) -> Ref { return &c.profile.keep_runs; }},
      {"profile.old_runs",
       "what happens to older run directories",
       {"compress", "delete", "keep"},
       +[](Config& c) -> Ref { return &c.profile.old_runs; }},
      {"profile.nsys_timeout_s",
       "time limit of the nsys run in seconds (0: none)",
       {},
       +[](Config& c) -> Ref { return &c.profile.nsys_timeout_s; }},
      {"profile.ncu_timeout_s",
       "time limit of each ncu run in seconds (0: none)",
       {},
       +[](Config& c) -> Ref { return &c.profile.ncu_timeout_s; }},
      {"profile.rank",
       "wrapper mode: profile only this rank of a multi-rank job, every rank running the workload once per pass "
       "(-1: off)",
       {},
       +[](Config& c) -> Ref { return &c.profile.rank; }},
      {"profile.ncu_stall_timeout_s",
       "stop an ncu run that stays this many seconds inside one launch without printing progress (a kernel that "
       "waits for a peer which does not replay it); the run keeps what was gathered (0: never)",
       {},
       +[](Config& c) -> Ref { return &c.profile.ncu_stall_timeout_s; }},
      {"profile.rank_ncu_runs",
       "wrapper mode: ncu runs of the profiled rank; every rank runs the workload once for nsys and once per ncu run",
       {},
       +[](Config& c) -> Ref { return &c.profile.rank_ncu_runs; }},
      {"profile.ncu_rank",
       "a multi-process job under one kscope (torchrun, mpirun): the rank, in process order, whose kernels ncu "
       "profiles; the others run unprofiled",
       {},
       +[](Config& c) -> Ref { return &c.profile.ncu_rank; }},
      {"profile.cache_dir",
       "folder where kscope keeps what each ncu version offers on each GPU (empty: ~/.cache/kscope)",
       {},
       +[](Config& c) -> Ref { return &c.profile.cache_dir; }},
      {"profile.max_trace_mb",
       "largest nsys report (MB) kscope exports and imports; a larger one stops the profile with advice (0: no cap)",
       {},
       +[](Config& c) -> Ref { return &c.profile.max_trace_mb; }},
      {"nsys.trace", "nsys --trace", {}, +[](Config& c) -> Ref { return &c.nsys.trace; }},
      {"nsys.sample", "nsys --sample", {}, +[](Config& c) -> Ref { return &c.nsys.sample; }},
      {"nsys.cuda_graph_trace",
       "nsys --cuda-graph-trace",
       {"node", "graph"},
       +[](Config& c) -> Ref { return &c.nsys.cuda_graph_trace; }},
      {"nsys.capture_range",
       "NVTX range that gates nsys (--capture-range=nvtx); empty: the whole run",
       {},
       +[](Config& c) -> Ref { return &c.nsys.capture_range; }},
      {"nsys.pytorch",
       "nsys --pytorch: autograd-nvtx adds PyTorch's per-op NVTX ranges, which tie backward kernels to forward ops",
       {"", "autograd-nvtx", "autograd-shapes-nvtx"},
       +[](Config& c) -> Ref { return &c.nsys.pytorch; }},
      {"nsys.duration_s",
       "nsys --duration: stop recording after this many seconds, the workload runs on (0: record the whole run)",
       {},
       +[](Config& c) -> Ref { return &c.nsys.duration_s; }},
      {"nsys.gpu_metrics",
       "on: nsys samples every GPU's metrics over the timeline (SM active, tensor active, DRAM bandwidth; "
       "--gpu-metrics-devices=all), imported and shown per stage beside MFU; off where the GPU does not allow it "
       "(before Turing, or with profiling counters restricted: kscope doctor)",
       {"on", "off"},
       +[](Config& c) -> Ref { return &c.nsys.gpu_metrics; }},
      {"nsys.gpu_metrics_hz",
       "GPU metrics samples per second (--gpu-metrics-frequency; nsys's default 10000 made 7.4 million rows "
       "for a 40 s run on an H100)",
       {},
       +[](Config& c) -> Ref { return &c.nsys.gpu_metrics_hz; }},
      {"nsys.extra_args",
       "more nsys profile arguments, passed as they are",
       {},
       +[](Config& c) -> Ref { return &c.nsys.extra_args; }},
      {"selection.coverage_pct",
       "select top kernels until they cover this share of GPU kernel time",
       {},
       +[](Config& c) -> Ref { return &c.selection.coverage_pct; }},
      {"selection.budget_s",
       "estimated ncu time the selection may spend (launches x passes x selection.pass_s, plus the workload that "
       "each ncu run repeats); 0: no limit",
       {},
       +[](Config& c) -> Ref { return &c.selection.budget_s; }},
      {"selection.pass_s",
       "estimated seconds of one ncu replay pass of one launch (save, restore, run), for the budget",
       {},
       +[](Config& c) -> Ref { return &c.selection.pass_s; }},
      {"selection.top",
       "at most this many kernels (0: no cap)",
       {},
       +[](Config& c) -> Ref { return &c.selection.top; }},
      {"selection.stage",
       "NVTX range: select among its kernels and gate ncu on it; empty: the whole run",
       {},
       +[](Config& c) -> Ref { return &c.selection.stage; }},
      {"selection.warmup",
       "launches of each kernel skipped (warm-up) before the profiled ones",
       {},
       +[](Config& c) -> Ref { return &c.selection.warmup; }},
      {"selection.launches",
       "launches of each launch configuration (kernel, grid, block) to profile",
       {},
       +[](Config& c) -> Ref { return &c.selection.launches; }},
      {"selection.max_pass_launches",
       "launches one ncu run may profile before kernels are split over runs",
       {},
       +[](Config& c) -> Ref { return &c.selection.max_pass_launches; }},
      {"selection.kernel",
       "profile the kernels whose demangled name contains this (or matches regex:EXPR) instead of the top ones",
       {},
       +[](Config& c) -> Ref { return &c.selection.kernel; }},
      {"selection.launch",
       "which launches to profile, counted from 1: N or N-M (empty: after selection.warmup, selection.launches)",
       {},
       +[](Config& c) -> Ref { return &c.selection.launch; }},
      {"selection.launch_scope",
       "what selection.launch counts: each launch configuration's launches, or each kernel's",
       {"config", "kernel"},
       +[](Config& c) -> Ref { return &c.selection.launch_scope; }},
      {"selection.exclude",
       "NVTX ranges whose launches are left out (domain@range for a named domain)",
       {},
       +[](Config& c) -> Ref { return &c.selection.exclude; }},
      {"selection.communication",
       "on: communication kernels (NCCL, NVSHMEM, custom all-reduce), which wait on peers, are selected like any "
       "other; ncu keeps the ranks in step while it replays them (--communicator shmem) where the installed ncu has "
       "it, else replays the whole job (application replay); off: measured from nsys only",
       {"off", "on"},
       +[](Config& c) -> Ref { return &c.selection.communication; }},
      {"selection.growing_configs",
       "a kernel with at least this many launch configurations that differ only in one dimension (grid, block or "
       "shared memory: a shape that grows step by step) has its sizes sampled instead of every one profiled",
       {},
       +[](Config& c) -> Ref { return &c.selection.growing_configs; }},
      {"selection.growing_samples",
       "representative sizes profiled of such a kernel (0: profile every configuration)",
       {},
       +[](Config& c) -> Ref { return &c.selection.growing_samples; }},
      {"selection.growing_run",
       "kernel-id: every sampled size in one ncu run that picks each by its invocation number and ends the "
       "workload after the last; windows: an ncu run per sampled size",
       {"kernel-id", "windows"},
       +[](Config& c) -> Ref { return &c.selection.growing_run; }},
      {"selection.workload_s",
       "the workload's own wall time, which every ncu run repeats, for the estimate (0: the nsys pass's, or the "
       "discovery run's span of CUDA calls)",
       {},
       +[](Config& c) -> Ref { return &c.selection.workload_s; }},
      {"selection.launch_us",
       "microseconds ncu adds to each launch it does not profile, for the estimate",
       {},
       +[](Config& c) -> Ref { return &c.selection.launch_us; }},
      {"ncu.mode",
       "sections collected (docs/profile.md); full: ncu's set full",
       {"quick", "deep", "roofline", "full"},
       +[](Config& c) -> Ref { return &c.ncu.mode; }},
      {"ncu.set",
       "an ncu section set (basic, detailed, full, roofline, ...: ncu --list-sets) instead of the mode's sections",
       {},
       +[](Config& c) -> Ref { return &c.ncu.set; }},
      {"ncu.metrics",
       "more ncu metrics (ncu --query-metrics), checked before ncu runs",
       {},
       +[](Config& c) -> Ref { return &c.ncu.metrics; }},
      {"ncu.replay", "ncu --replay-mode", {"kernel", "application"}, +[](Config& c) -> Ref { return &c.ncu.replay; }},
      {"ncu.clock_control",
       "ncu --clock-control",
       {"base", "none"},
       +[](Config& c) -> Ref { return &c.ncu.clock_control; }},
      {"ncu.cache_control",
       "ncu --cache-control",
       {"all", "none"},
       +[](Config& c) -> Ref { return &c.ncu.cache_control; }},
      {"ncu.target_processes",
       "ncu --target-processes",
       {"all", "application-only"},
       +[](Config& c) -> Ref { return &c.ncu.target_processes; }},
      {"ncu.sections",
       "more ncu sections on top of the mode's or the set's (ncu --list-sections), checked before ncu runs",
       {},
       +[](Config& c) -> Ref { return &c.ncu.sections; }},
      {"ncu.flops",
       "collect the FLOP counters (FP64/FP32/FP16 instructions, tensor paths) with any mode: MFU and rooflines",
       {"on", "off"},
       +[](Config& c) -> Ref { return &c.ncu.flops; }},
      {"ncu.stalls",
       "collect the warp-stall breakdown per reason (ncu's WarpStateStats section) with every mode, quick included: "
       "the evidence behind latency-bound classes (about 7 replay passes more per launch on an H100)",
       {"on", "off"},
       +[](Config& c) -> Ref { return &c.ncu.stalls; }},
      {"ncu.import",
       "how each deep pass's report is read: by kscope itself, or (export) from the raw and details pages the "
       "installed ncu exports as CSV, for a report format kscope does not read",
       {"native", "export"},
       +[](Config& c) -> Ref { return &c.ncu.import; }},
      {"ncu.extra_args",
       "more ncu arguments, passed as they are",
       {},
       +[](Config& c) -> Ref { return &c.ncu.extra_args; }},
      {"classify.busy_pct",
       "a unit busier than this share of its peak is the limiter",
       {},
       +[](Config& c) -> Ref { return &c.classify.busy_pct; }},
      {"classify.launch_us",
       "kernels shorter than this (microseconds) ...",
       {},
       +[](Config& c) -> Ref { return &c.classify.launch_us; }},
      {"classify.launch_waves",
       "... with fewer waves than this are launch-bound",
       {},
       +[](Config& c) -> Ref { return &c.classify.launch_waves; }},
      {"classify.low_occupancy_pct",
       "achieved occupancy below this is called low",
       {},
       +[](Config& c) -> Ref { return &c.classify.low_occupancy_pct; }},
      {"classify.low_l2_hit_pct",
       "a DRAM-bound kernel whose L2 hit rate is below this is a cache inefficiency",
       {},
       +[](Config& c) -> Ref { return &c.classify.low_l2_hit_pct; }},
      {"atlas.outlier_fraction",
       "kscope atlas: a launch configuration below this fraction of its family's median (% of roof, else SM %) is "
       "an outlier ...",
       {},
       +[](Config& c) -> Ref { return &c.atlas.outlier_fraction; }},
      {"atlas.outlier_min_launches",
       "... in a family with at least this many launches that have the figure",
       {},
       +[](Config& c) -> Ref { return &c.atlas.outlier_min_launches; }},
      {"atlas.signal_share_pct",
       "kscope atlas: a family shows a systemic signal when this share (%) of its launches with the metrics do",
       {},
       +[](Config& c) -> Ref { return &c.atlas.signal_share_pct; }},
      {"atlas.low_tensor_pct",
       "signal: a matmul-like launch whose tensor pipe is active less than this (% of peak) uses it little",
       {},
       +[](Config& c) -> Ref { return &c.atlas.low_tensor_pct; }},
      {"atlas.register_occupancy_pct",
       "signal: a launch whose occupancy is limited by registers to a theoretical occupancy below this (%)",
       {},
       +[](Config& c) -> Ref { return &c.atlas.register_occupancy_pct; }},
      {"atlas.many_launches",
       "signal, launch-bound: a family with at least this many launches per run, averaging under classify.launch_us",
       {},
       +[](Config& c) -> Ref { return &c.atlas.many_launches; }},
      {"timeline.launch_bound_busy_pct",
       "launch-bound: the GPU busy less than this share of the time ...",
       {},
       +[](Config& c) -> Ref { return &c.timeline.launch_bound_busy_pct; }},
      {"timeline.short_kernel_us",
       "... with a median kernel shorter than this (microseconds) ...",
       {},
       +[](Config& c) -> Ref { return &c.timeline.short_kernel_us; }},
      {"timeline.launch_bound_min_kernels",
       "... and at least this many kernels",
       {},
       +[](Config& c) -> Ref { return &c.timeline.launch_bound_min_kernels; }},
      {"timeline.min_gap_us",
       "idle gaps shorter than this (microseconds) are not listed one by one",
       {},
       +[](Config& c) -> Ref { return &c.timeline.min_gap_us; }},
      {"timeline.idle_gap_pct",
       "gpu_idle finding: long gaps above this share of the time",
       {},
       +[](Config& c) -> Ref { return &c.timeline.idle_gap_pct; }},
      {"timeline.copy_pct",
       "host_device_copies finding: host-device copies above this share of the time",
       {},
       +[](Config& c) -> Ref { return &c.timeline.copy_pct; }},
      {"timeline.pageable_pct",
       "pageable_memory finding: pageable copies above this share of the time",
       {},
       +[](Config& c) -> Ref { return &c.timeline.pageable_pct; }},
      {"timeline.sync_pct",
       "synchronization finding: synchronizing calls above this share of the time",
       {},
       +[](Config& c) -> Ref { return &c.timeline.sync_pct; }},
      {"stages.warmup",
       "instances of each NVTX stage left out of MFU and verdicts as warm-up (the first ones); the profile's "
       "selection ranks kernels without them too",
       {},
       +[](Config& c) -> Ref { return &c.stages.warmup; }},
      {"model.name", "model name, for the manifest", {}, +[](Config& c) -> Ref { return &c.model.name; }},
      {"model.dtype",
       "compute dtype (bf16, fp16, fp8, tf32, fp32), for the peak used by MFU",
       {},
       +[](Config& c) -> Ref { return &c.model.dtype; }},
      {"model.hf_config",
       "a Hugging Face config.json to read the model's shapes from (layers, hidden, heads, experts, ...); in a "
       "configuration file, relative to its folder",
       {},
       +[](Config& c) -> Ref { return &c.model.hf_config; },
       true},
      {"model.params",
       "parameters in matrix multiplies, N of 6N (0: from the shapes)",
       {},
       +[](Config& c) -> Ref { return &c.model.params; }},
      {"model.flops_per_item",
       "forward FLOPs per token or item, for models the shapes do not describe (e.g. 8.2e9 per ResNet-50 image)",
       {},
       +[](Config& c) -> Ref { return &c.model.flops_per_item; }},
      {"model.layers", "transformer layers", {}, +[](Config& c) -> Ref { return &c.model.layers; }},
      {"model.hidden", "hidden size", {}, +[](Config& c) -> Ref { return &c.model.hidden; }},
      {"model.intermediate",
       "MLP intermediate size (gated: three matrices)",
       {},
       +[](Config& c) -> Ref { return &c.model.intermediate; }},
      {"model.heads", "attention heads", {}, +[](Config& c) -> Ref { return &c.model.heads; }},
      {"model.kv_heads",
       "key/value heads (grouped-query attention)",
       {},
       +[](Config& c) -> Ref { return &c.model.kv_heads; }},
      {"model.vocab", "vocabulary size (the output projection)", {}, +[](Config& c) -> Ref { return &c.model.vocab; }},
      {"model.experts",
       "mixture of experts: experts per layer",
       {},
       +[](Config& c) -> Ref { return &c.model.experts; }},
      {"model.experts_per_token",
       "mixture of experts: experts each token is routed to",
       {},
       +[](Config& c) -> Ref { return &c.model.experts_per_token; }},
      {"model.recompute",
       "activations recomputed in the backward pass (adds a forward pass to the hardware FLOPs)",
       {"none", "full"},
       +[](Config& c) -> Ref { return &c.model.recompute; }},
      {"model.batch", "sequences per step", {}, +[](Config& c) -> Ref { return &c.model.batch; }},
      {"model.stage_tokens",
       "tokens (or items) one instance of each NVTX stage processes, all sequences, e.g. {prefill: 256, decode: 32}",
       {},
       +[](Config& c) -> Ref { return &c.model.stage_tokens; }},
      {"model.stage_context",
       "mean attention context length per stage, e.g. {prefill: 64, decode: 136}",
       {},
       +[](Config& c) -> Ref { return &c.model.stage_context; }},
      {"model.stage_steps",
       "forward passes per stage instance (each reads the weights once), e.g. {prefill: 1, decode: 16}",
       {},
       +[](Config& c) -> Ref { return &c.model.stage_steps; }},
      {"model.stage_passes",
       "what each stage runs: forward, backward or training (both); default from the stage's name",
       {},
       +[](Config& c) -> Ref { return &c.model.stage_passes; }},
  };
  return kKeys;
}

const Key* FindKey(std::string_view name) {
  for (const Key& k : Keys()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::vector<std::string> KeyNames() {
  std::vector<std::string> out;
  for (const Key& k : Keys()) out.emplace_back(k.name);
  return out;
}

Error UnknownKey(const std::string& where, const std::string& key) {
  const auto near = Closest(key, KeyNames(), 1);
  return Error{where, "unknown configuration key '" + key + "'",
               near.empty() ? "see docs/config.md" : "did you mean '" + near[0] + "'? (docs/config.md)"};
}

std::string TypeName(const Ref& r) {
  return std::visit(
      [](auto* p) -> std::string {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, std::string>) return "text";
        if constexpr (std::is_same_v<T, double>) return "number";
        if constexpr (std::is_same_v<T, int64_t>) return "integer";
        if constexpr (std::is_same_v<T, std::vector<std::string>>) return "list of text";
        if constexpr (std::is_same_v<T, std::map<std::string, std::string>>) return "map of name to text";
        return "map of name to integer";
      },
      r);
}

Status Set(Config& c, const Key& key, const YAML::Node& node, const std::string& where) {
  Ref ref = key.ref(c);
  auto bad = [&]() {
    return Error{where, fmt::format("{} must be {}", key.name, TypeName(ref)), "see docs/config.md"};
  };
  try {
    if (auto* s = std::get_if<std::string*>(&ref)) {
      if (!node.IsScalar()) return bad();
      std::string v = node.as<std::string>();
      if (!key.choices.empty() && std::find(key.choices.begin(), key.choices.end(), v) == key.choices.end()) {
        std::string allowed;
        for (auto ch : key.choices) allowed += (allowed.empty() ? "" : ", ") + std::string(ch);
        return Error{where, fmt::format("{} is '{}', not one of {}", key.name, v, allowed), "see docs/config.md"};
      }
      **s = std::move(v);
    } else if (auto* d = std::get_if<double*>(&ref)) {
      if (!node.IsScalar()) return bad();
      **d = node.as<double>();
    } else if (auto* i = std::get_if<int64_t*>(&ref)) {
      if (!node.IsScalar()) return bad();
      **i = node.as<int64_t>();
    } else if (auto* l = std::get_if<std::vector<std::string>*>(&ref)) {
      if (node.IsScalar()) {
        **l = {node.as<std::string>()};
      } else if (node.IsSequence()) {
        (*l)->clear();
        for (const auto& e : node) (*l)->push_back(e.as<std::string>());
      } else if (node.IsNull()) {
        (*l)->clear();
      } else {
        return bad();
      }
    } else if (auto* m = std::get_if<std::map<std::string, int64_t>*>(&ref)) {
      if (!node.IsMap()) return bad();
      (*m)->clear();
      for (const auto& e : node) (**m)[e.first.as<std::string>()] = e.second.as<int64_t>();
    } else if (auto* t = std::get_if<std::map<std::string, std::string>*>(&ref)) {
      if (!node.IsMap()) return bad();
      (*t)->clear();
      for (const auto& e : node) (**t)[e.first.as<std::string>()] = e.second.as<std::string>();
    }
  } catch (const YAML::Exception&) {
    return bad();
  }
  return Status::Ok();
}

Status ReadSweep(Config& c, const YAML::Node& node, const std::string& where) {
  if (!node.IsMap()) return Error{where, "sweep must map names to lists of values", "see docs/profile.md"};
  for (const auto& e : node) {
    auto& values = c.sweep[e.first.as<std::string>()];
    values.clear();
    if (e.second.IsSequence()) {
      for (const auto& v : e.second) values.push_back(v.as<std::string>());
    } else {
      values.push_back(e.second.as<std::string>());
    }
  }
  return Status::Ok();
}

Status ReadTree(Config& c, const YAML::Node& node, const std::string& prefix, const std::string& where) {
  for (const auto& e : node) {
    const std::string name = prefix + e.first.as<std::string>();
    if (name == "sweep") {
      KSCOPE_RETURN_IF_ERROR(ReadSweep(c, e.second, where));
    } else if (const Key* k = FindKey(name)) {
      KSCOPE_RETURN_IF_ERROR(Set(c, *k, e.second, where));
      if (k->path) {  // a file named in a configuration file: relative to that file's folder
        auto* value = std::get<std::string*>(k->ref(c));
        if (!value->empty() && std::filesystem::path(*value).is_relative()) {
          *value = (std::filesystem::path(where).parent_path() / *value).lexically_normal().string();
        }
      }
    } else if (e.second.IsMap()) {
      KSCOPE_RETURN_IF_ERROR(ReadTree(c, e.second, name + ".", where));
    } else {
      return UnknownKey(where, name);
    }
  }
  return Status::Ok();
}

YAML::Node ToNode(const Ref& r) {
  return std::visit(
      [](auto* p) -> YAML::Node {
        using T = std::remove_pointer_t<decltype(p)>;
        YAML::Node n;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          n = YAML::Node(YAML::NodeType::Sequence);
          for (const auto& v : *p) n.push_back(v);
        } else if constexpr (std::is_same_v<T, std::map<std::string, int64_t>> ||
                             std::is_same_v<T, std::map<std::string, std::string>>) {
          n = YAML::Node(YAML::NodeType::Map);
          for (const auto& [k, v] : *p) n[k] = v;
        } else {
          n = *p;
        }
        return n;
      },
      r);
}

}  // namespace

Status ApplyOverride(Config& config, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Error{"", "override '" + assignment + "' is not KEY=VALUE", "write e.g. ncu.mode=deep"};
  }
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  const Key* k = FindKey(key);
  if (k == nullptr) return UnknownKey("", key);
  YAML::Node node;
  try {
    node = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    return Error{"", "override " + key + ": '" + value + "' is not a YAML value (" + e.msg + ")", ""};
  }
  if (node.IsNull() && !value.empty()) node = YAML::Node(value);
  if (node.IsNull() && std::holds_alternative<std::string*>(k->ref(config))) node = YAML::Node(std::string());
  return Set(config, *k, node, "override " + key);
}

Result<Config> LoadConfig(const std::string& path, const std::vector<std::string>& overrides) {
  Config c;
  if (!path.empty()) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(path);
    } catch (const YAML::BadFile&) {
      return Error{path, "cannot read the configuration file", "check the path"};
    } catch (const YAML::Exception& e) {
      return Error{path, fmt::format("not valid YAML: {} (line {})", e.msg, e.mark.line + 1),
                   "fix the file (docs/config.md)"};
    }
    if (!root.IsNull()) {
      if (!root.IsMap()) return Error{path, "the configuration must be a YAML mapping", "see docs/config.md"};
      KSCOPE_RETURN_IF_ERROR(ReadTree(c, root, "", path));
    }
  }
  for (const auto& o : overrides) KSCOPE_RETURN_IF_ERROR(ApplyOverride(c, o));
  return c;
}

std::string ToYaml(const Config& config) {
  Config copy = config;
  YAML::Node root(YAML::NodeType::Map);
  for (const Key& k : Keys()) {
    const std::string name(k.name);
    const auto dot = name.find('.');
    root[name.substr(0, dot)][name.substr(dot + 1)] = ToNode(k.ref(copy));
  }
  if (!copy.sweep.empty()) {
    for (const auto& [k, vs] : copy.sweep) {
      YAML::Node seq(YAML::NodeType::Sequence);
      for (const auto& v : vs) seq.push_back(v);
      root["sweep"][k] = seq;
    }
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::string KeysMarkdown() {
  Config defaults;
  std::ostringstream md;
  md << "| key | type | default | meaning |\n|---|---|---|---|\n";
  for (const Key& k : Keys()) {
    const Ref r = k.ref(defaults);
    YAML::Emitter e;
    e << YAML::Flow << ToNode(r);
    std::string type = TypeName(r);
    if (!k.choices.empty()) {
      type.clear();
      for (auto ch : k.choices) type += (type.empty() ? "" : " \\| ") + std::string(ch);
    }
    md << "| `" << k.name << "` | " << type << " | `" << e.c_str() << "` | " << k.doc << " |\n";
  }
  return md.str();
}

}  // namespace kscope::config
