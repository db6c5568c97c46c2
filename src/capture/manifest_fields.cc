#include "capture/manifest_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace kscope::capture {

namespace {

using json = nlohmann::json;

enum class Type { kString, kNumber, kInteger, kBool, kObject, kStrings, kIntegers, kObjects };

struct Field {
  std::string_view path;  // dotted; "a[]" is each element of the array a
  Type type;
};

// Null passes for every field but the two that make a manifest (kscope_run, steps), as kscope
// writes null where it knows nothing (environment.CUDA_VISIBLE_DEVICES unset).
constexpr Field kFields[] = {
    {"kscope_run", Type::kInteger},
    {"steps", Type::kObjects},
    {"steps[].name", Type::kString},
    {"steps[].argv", Type::kStrings},
    {"steps[].env", Type::kObject},
    {"steps[].exit_code", Type::kInteger},
    {"steps[].log", Type::kString},
    {"steps[].seconds", Type::kNumber},
    {"steps[].profiled_kernel_rows", Type::kIntegers},
    {"steps[].launches_profiled", Type::kInteger},
    {"steps[].launches_read", Type::kInteger},
    {"steps[].linked", Type::kInteger},
    {"steps[].retry_of", Type::kInteger},
    {"steps[].stalled_at", Type::kString},
    {"steps[].rank_gate", Type::kObject},
    {"steps[].rank_gate.rank", Type::kInteger},
    {"steps[].rank_gate.ncu_argv", Type::kStrings},
    {"status", Type::kString},
    {"started_at", Type::kString},
    {"finished_at", Type::kString},
    {"seconds", Type::kNumber},
    {"error", Type::kString},
    {"host", Type::kString},
    {"cwd", Type::kString},
    {"run_dir", Type::kString},
    {"workload", Type::kStrings},
    {"workload_s", Type::kNumber},
    {"command", Type::kString},
    {"config", Type::kString},
    {"notes", Type::kStrings},
    {"discovery_run", Type::kInteger},
    {"sweep_point", Type::kObject},
    {"run", Type::kObject},
    {"run.label", Type::kString},
    {"run.model", Type::kString},
    {"run.dtype", Type::kString},
    {"run.batch", Type::kInteger},
    {"run.tokens", Type::kInteger},
    {"run.tags", Type::kObject},
    {"environment", Type::kObject},
    {"environment.CUDA_VISIBLE_DEVICES", Type::kString},
    {"environment.torch", Type::kString},
    {"environment.python", Type::kString},
    {"tools", Type::kObject},
    {"tools.nsys", Type::kObject},
    {"tools.nsys.path", Type::kString},
    {"tools.nsys.version", Type::kString},
    {"tools.ncu", Type::kObject},
    {"tools.ncu.path", Type::kString},
    {"tools.ncu.version", Type::kString},
    {"gpu", Type::kObject},
    {"gpu.name", Type::kString},
    {"gpu.driver", Type::kString},
    {"gpu.compute_cap", Type::kString},
    {"gpu.sm_arch", Type::kString},
    {"gpu.persistence_mode", Type::kString},
    {"gpu.mem_clock_mhz", Type::kNumber},
    {"gpu.sm_clock_mhz", Type::kNumber},
    {"gpu.sm_max_clock_mhz", Type::kNumber},
    {"gpu.power_limit_w", Type::kNumber},
    {"gpu.power_max_limit_w", Type::kNumber},
    {"job", Type::kObject},
    {"job.id", Type::kString},
    {"job.from", Type::kString},
    {"job.rank", Type::kInteger},
    {"job.rank_from", Type::kString},
    {"job.world_size", Type::kInteger},
    {"ncu_settings", Type::kObject},
    {"ncu_settings.mode", Type::kString},
    {"ncu_settings.set", Type::kString},
    {"ncu_settings.sections", Type::kStrings},
    {"ncu_settings.metrics", Type::kStrings},
    {"ncu_settings.flops", Type::kString},
    {"ncu_settings.replay", Type::kString},
    {"ncu_settings.clock_control", Type::kString},
    {"ncu_settings.cache_control", Type::kString},
    {"ncu_settings.import", Type::kObject},
    {"selection", Type::kObject},
    {"selection.kernel_name_base", Type::kString},
    {"selection.filter_mode", Type::kString},
    {"selection.limited_by", Type::kString},
    {"selection.stage", Type::kString},
    {"selection.target", Type::kString},
    {"selection.replay", Type::kString},
    {"selection.nvtx_include", Type::kString},
    {"selection.nvtx_exclude", Type::kStrings},
    {"selection.notes", Type::kStrings},
    {"selection.warmup_stages", Type::kStrings},
    {"selection.app_s", Type::kNumber},
    {"selection.budget_s", Type::kNumber},
    {"selection.estimated_s", Type::kNumber},
    {"selection.covered_pct", Type::kNumber},
    {"selection.deep_pct", Type::kNumber},
    {"selection.device", Type::kInteger},
    {"selection.rank", Type::kInteger},
    {"selection.rank_pid", Type::kInteger},
    {"selection.ranks", Type::kInteger},
    {"selection.communicator_peers", Type::kInteger},
    {"selection.launch_count_per_config", Type::kInteger},
    {"selection.launch_skip_per_config", Type::kInteger},
    {"selection.passes_per_launch", Type::kInteger},
    {"selection.scope_kernels", Type::kInteger},
    {"selection.scope_ns", Type::kInteger},
    {"selection.warmup_instances", Type::kInteger},
    {"selection.warmup_kernels", Type::kInteger},
    {"selection.warmup_ns", Type::kInteger},
    {"selection.communication", Type::kObject},
    {"selection.kernels", Type::kObjects},
    {"selection.kernels[].name", Type::kString},
    {"selection.kernels[].mangled", Type::kString},
    {"selection.kernels[].filter", Type::kString},
    {"selection.kernels[].configs", Type::kInteger},
    {"selection.kernels[].launches", Type::kInteger},
    {"selection.kernels[].profiled", Type::kInteger},
    {"selection.kernels[].covered_ns", Type::kInteger},
    {"selection.kernels[].total_ns", Type::kInteger},
    {"selection.kernels[].share_pct", Type::kNumber},
    {"selection.passes", Type::kObjects},
    {"selection.passes[].filter", Type::kString},
    {"selection.passes[].kernels", Type::kIntegers},
    {"selection.passes[].profiled_kernel_rows", Type::kIntegers},
};

bool Is(const json& v, Type t) {
  auto all = [&](auto pred) { return v.is_array() && std::all_of(v.begin(), v.end(), pred); };
  switch (t) {
    case Type::kString: return v.is_string();
    case Type::kNumber: return v.is_number();
    case Type::kInteger: return v.is_number_integer();
    case Type::kBool: return v.is_boolean();
    case Type::kObject: return v.is_object();
    case Type::kStrings: return all([](const json& e) { return e.is_string(); });
    case Type::kIntegers: return all([](const json& e) { return e.is_number_integer(); });
    case Type::kObjects: return all([](const json& e) { return e.is_object(); });
  }
  return false;
}

std::string_view Named(Type t) {
  switch (t) {
    case Type::kString: return "a string";
    case Type::kNumber: return "a number";
    case Type::kInteger: return "a whole number";
    case Type::kBool: return "true or false";
    case Type::kObject: return "an object";
    case Type::kStrings: return "a list of strings";
    case Type::kIntegers: return "a list of whole numbers";
    case Type::kObjects: return "a list of objects";
  }
  return "";
}

std::string_view JsonTypeOf(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return "true or false";
  if (v.is_object()) return "an object";
  if (v.is_array()) return "a list";
  return "null";
}

// Checks `field` (from `at` on in its dotted path) under `v`; `shown` is the path so far, with
// indexes ("steps[2].name").
Status Check(const json& v, std::string_view rest, const Field& field, const std::string& shown,
             const std::string& path) {
  const size_t dot = rest.find('.');
  std::string_view key = rest.substr(0, dot);
  const bool each = key.ends_with("[]");
  if (each) key.remove_suffix(2);
  if (!v.is_object() || !v.contains(key)) return Status::Ok();
  const json& at = v[std::string(key)];
  const std::string here = shown.empty() ? std::string(key) : shown + "." + std::string(key);
  if (dot == std::string_view::npos) {
    const bool nullable = field.path != "kscope_run" && field.path != "steps";
    if ((at.is_null() && nullable) || Is(at, field.type)) return Status::Ok();
    return Error{path,
                 fmt::format("{} is {}, and kscope profile writes {} there", here, JsonTypeOf(at), Named(field.type)),
                 "the manifest was edited or damaged: use the one kscope profile wrote, or import the run's files "
                 "themselves (kscope import FILE...)"};
  }
  if (!each) return Check(at, rest.substr(dot + 1), field, here, path);
  if (!at.is_array()) return Status::Ok();  // the array's own entry names that
  for (size_t i = 0; i < at.size(); ++i) {
    KSCOPE_RETURN_IF_ERROR(Check(at[i], rest.substr(dot + 1), field, fmt::format("{}[{}]", here, i), path));
  }
  return Status::Ok();
}

}  // namespace

Status CheckManifestFields(const json& manifest, const std::string& path) {
  for (const Field& f : kFields) KSCOPE_RETURN_IF_ERROR(Check(manifest, f.path, f, "", path));
  return Status::Ok();
}

}  // namespace kscope::capture
