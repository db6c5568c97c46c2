// What the installed ncu offers on this GPU: its section sets, its sections and its metrics,
// as `ncu --list-sets`, `--list-sections` and `--query-metrics` print them. kscope asks before
// a deep pass, so that a metric or section this ncu or GPU lacks is known before ncu starts
// (ncu rejects a whole run for one unknown metric); the answers are kept per ncu version and
// GPU chip in the cache folder, since asking takes seconds.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tools/process.h"
#include "util/status.h"

namespace kscope::capture {

struct NcuCatalog {
  std::string ncu_version;  // "2025.3.1.0"
  std::string device;       // "NVIDIA H100 80GB HBM3"
  std::string chip;         // "GH100" (--query-metrics' device line), "" when not printed
  std::set<std::string> sets, sections;
  std::set<std::string> metrics;  // base names (no .sum/.avg/... suffix)

  // Whether a metric (with or without its rollup and suffixes) exists here.
  [[nodiscard]] bool HasMetric(std::string_view metric) const;
  [[nodiscard]] bool empty() const { return metrics.empty() && sections.empty(); }
};

// The base name of a metric: "dram__bytes.sum.per_second" -> "dram__bytes".
std::string_view MetricBase(std::string_view metric);

// Parses the three outputs (any may be empty).
NcuCatalog ParseNcuCatalog(std::string_view list_sets, std::string_view list_sections, std::string_view query_metrics);

// The catalog of `ncu` (version `ncu_version`): from `cache_dir` when an earlier run saved it
// for this version and GPU, else by running ncu through `runner` (outputs in `logs_dir`) and
// saving it. `gpu`: the GPU's name (nvidia-smi), part of the cache key.
Result<NcuCatalog> LoadNcuCatalog(ProcessRunner& runner, const std::string& ncu, const std::string& ncu_version,
                                  const std::string& gpu, const std::string& cache_dir, const std::string& logs_dir);

// kscope's cache folder: $XDG_CACHE_HOME/kscope, else ~/.cache/kscope.
std::string DefaultCacheDir();

// The metrics of `wanted` that the catalog has, and those it lacks (an empty catalog has all).
struct MetricCheck {
  std::vector<std::string> present, missing;
};
MetricCheck CheckMetrics(const NcuCatalog& catalog, const std::vector<std::string>& wanted);

// An error naming the first of `set`, `sections` and `metrics` the catalog lacks, with the
// names it has that are closest (what replaces it); `key` names the setting in the message.
Status CheckRequest(const NcuCatalog& catalog, const std::string& set, const std::vector<std::string>& sections,
                    const std::vector<std::string>& metrics);

}  // namespace kscope::capture
