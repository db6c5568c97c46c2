#include "tools/ncu_catalog.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/atomic_file.h"
#include "util/closest.h"
#include "util/own_dir.h"

namespace kscope::capture {

namespace fs = std::filesystem;

namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    start = end + 1;
  }
  return out;
}

std::string_view FirstWord(std::string_view line) {
  const size_t b = line.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  const size_t e = line.find(' ', b);
  return line.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
}

bool IsRule(std::string_view line) { return !line.empty() && line.find_first_not_of("- ") == std::string_view::npos; }

// The identifiers of a table ncu prints: a rule, a header, a rule, then rows whose first
// word is the identifier; continuation rows (a wrapped cell) start with a blank.
std::set<std::string> TableIdentifiers(std::string_view text) {
  std::set<std::string> ids;
  int rules = 0;
  for (std::string_view line : Lines(text)) {
    if (IsRule(line)) {
      ++rules;
      continue;
    }
    if (rules < 2 || line.empty() || line.front() == ' ') continue;
    ids.emplace(FirstWord(line));
  }
  return ids;
}

std::string SafeName(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  }
  return s;
}

nlohmann::json ToJson(const NcuCatalog& c) {
  return {{"ncu_version", c.ncu_version}, {"device", c.device},  {"chip", c.chip}, {"sets", c.sets},
          {"sections", c.sections},       {"metrics", c.metrics}};
}

std::optional<NcuCatalog> FromJson(const nlohmann::json& j) {
  try {
    NcuCatalog c;
    c.ncu_version = j.at("ncu_version").get<std::string>();
    c.device = j.at("device").get<std::string>();
    c.chip = j.at("chip").get<std::string>();
    c.sets = j.at("sets").get<std::set<std::string>>();
    c.sections = j.at("sections").get<std::set<std::string>>();
    c.metrics = j.at("metrics").get<std::set<std::string>>();
    return c;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // an unreadable cache entry is asked again
  }
}

}  // namespace

std::string_view MetricBase(std::string_view metric) { return metric.substr(0, metric.find('.')); }

namespace {

// ncu's metric names: BASE, then a rollup (.sum .avg .min .max) and a submetric for counters
// and throughputs, or .pct .ratio .max_rate for ratios.
bool KnownSuffix(std::string_view suffix) {
  if (suffix.empty() || suffix == ".pct" || suffix == ".ratio" || suffix == ".max_rate") return true;
  for (std::string_view rollup : {".sum", ".avg", ".min", ".max"}) {
    if (suffix.starts_with(rollup)) {
      suffix.remove_prefix(rollup.size());
      break;
    }
  }
  if (suffix.empty()) return true;
  static const std::set<std::string_view> kSubmetrics = {".peak_sustained",
                                                         ".peak_sustained_active",
                                                         ".peak_sustained_active.per_second",
                                                         ".peak_sustained_elapsed",
                                                         ".peak_sustained_elapsed.per_second",
                                                         ".peak_sustained_region",
                                                         ".peak_sustained_region.per_second",
                                                         ".peak_sustained_frame",
                                                         ".peak_sustained_frame.per_second",
                                                         ".per_cycle_active",
                                                         ".per_cycle_elapsed",
                                                         ".per_cycle_region",
                                                         ".per_cycle_frame",
                                                         ".per_second",
                                                         ".pct_of_peak_sustained_active",
                                                         ".pct_of_peak_sustained_elapsed",
                                                         ".pct_of_peak_sustained_region",
                                                         ".pct_of_peak_sustained_frame"};
  return kSubmetrics.contains(suffix);
}

}  // namespace

bool NcuCatalog::HasMetric(std::string_view metric) const {
  const std::string_view base = MetricBase(metric);
  return metrics.contains(std::string(base)) && KnownSuffix(metric.substr(base.size()));
}

NcuCatalog ParseNcuCatalog(std::string_view list_sets, std::string_view list_sections, std::string_view query_metrics) {
  NcuCatalog c;
  c.sets = TableIdentifiers(list_sets);
  c.sets.erase("Identifier");
  c.sections = TableIdentifiers(list_sections);
  c.sections.erase("Identifier");
  for (std::string_view line : Lines(query_metrics)) {
    if (line.starts_with("Device ")) {
      // "Device NVIDIA H100 80GB HBM3 (GH100)"
      std::string_view d = line.substr(7);
      if (const size_t open = d.rfind(" ("); open != std::string_view::npos && d.ends_with(")")) {
        c.chip = std::string(d.substr(open + 2, d.size() - open - 3));
        d = d.substr(0, open);
      }
      c.device = std::string(d);
      continue;
    }
    if (line.empty() || line.front() == ' ' || IsRule(line)) continue;
    const std::string_view name = FirstWord(line);
    if (name.find("__") == std::string_view::npos) continue;  // the header, and words of wrapped rows
    c.metrics.emplace(name);
  }
  return c;
}

std::string DefaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return (fs::path(xdg) / "kscope").string();
  }
  const char* home = std::getenv("HOME");
  return (fs::path(home != nullptr ? home : ".") / ".cache" / "kscope").string();
}

Result<NcuCatalog> LoadNcuCatalog(ProcessRunner& runner, const std::string& ncu, const std::string& ncu_version,
                                  const std::string& gpu, const std::string& cache_dir, const std::string& logs_dir) {
  const fs::path cached = fs::path(cache_dir) / SafeName(fmt::format("ncu-{}-{}.json", ncu_version, gpu));
  // A cache folder that is a link or another user's is neither read nor written: what it holds
  // could be anyone's.
  const bool own_cache = MakeOwnDir(cache_dir, "").ok();
  if (std::ifstream in(cached); own_cache && in) {
    auto j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_discarded()) {
      if (auto c = FromJson(j); c && c->ncu_version == ncu_version) return *c;
    }
  }
  std::map<std::string, std::string> outputs;
  for (const char* what : {"--list-sets", "--list-sections", "--query-metrics"}) {
    ProcessSpec spec;
    spec.argv = {ncu, what};
    spec.stdout_path = (fs::path(logs_dir) / fmt::format("ncu{}.txt", std::string(what).substr(1))).string();
    spec.log_path = (fs::path(logs_dir) / "ncu_catalog.log").string();
    spec.timeout_s = 120;
    auto run = runner.Run(spec);
    if (!run.ok()) return run.error();
    if (!run->ok()) {
      return Error{ncu, fmt::format("`ncu {}` failed ({})", what, run->Describe()),
                   "see " + spec.log_path + "; kscope asks ncu what it offers before profiling"};
    }
    std::ifstream in(spec.stdout_path);
    std::ostringstream text;
    text << in.rdbuf();
    outputs[what] = text.str();
  }
  NcuCatalog c = ParseNcuCatalog(outputs["--list-sets"], outputs["--list-sections"], outputs["--query-metrics"]);
  c.ncu_version = ncu_version;
  if (c.metrics.empty()) {
    return Error{
        ncu, "`ncu --query-metrics` listed no metrics",
        "check that ncu sees the GPU (kscope doctor); see " + (fs::path(logs_dir) / "ncu-query-metrics.txt").string()};
  }
  if (own_cache)
    (void)WriteFileAtomically(cached, ToJson(c).dump() + "\n");  // a cache: failing to write it is no error
  return c;
}

MetricCheck CheckMetrics(const NcuCatalog& catalog, const std::vector<std::string>& wanted) {
  MetricCheck check;
  for (const auto& m : wanted)
    (catalog.metrics.empty() || catalog.HasMetric(m) ? check.present : check.missing).push_back(m);
  return check;
}

Status CheckRequest(const NcuCatalog& catalog, const std::string& set, const std::vector<std::string>& sections,
                    const std::vector<std::string>& metrics) {
  const std::string version = catalog.ncu_version.empty() ? "this ncu" : "ncu " + catalog.ncu_version;
  auto lacks = [&](const std::string& key, const std::string& what, const std::string& name,
                   const std::set<std::string>& have) {
    std::string near;
    for (const auto& c : Closest(name, std::vector<std::string>(have.begin(), have.end()), 4)) {
      near += (near.empty() ? "'" : ", '") + c + "'";
    }
    return Error{key,
                 fmt::format("{} on {} has no {} '{}'", version, catalog.device.empty() ? "this GPU" : catalog.device,
                             what, name),
                 near.empty() ? "see ncu --list-" + what + "s" : "closest: " + near};
  };
  if (!set.empty() && !catalog.sets.empty() && !catalog.sets.contains(set))
    return lacks("ncu.set", "set", set, catalog.sets);
  for (const auto& s : sections) {
    if (!catalog.sections.empty() && !catalog.sections.contains(s))
      return lacks("ncu.sections", "section", s, catalog.sections);
  }
  for (const auto& m : metrics) {
    if (m.find(':') != std::string::npos) continue;  // regex:, group:, breakdown: are ncu's to expand
    const std::string base(MetricBase(m));
    if (!catalog.metrics.empty() && catalog.metrics.contains(base) && !catalog.HasMetric(m)) {
      return Error{"ncu.metrics", fmt::format("'{}' has no suffix '{}' in ncu's naming", m, m.substr(base.size())),
                   "a ratio takes .pct or .ratio; a counter or throughput .sum, .avg, .min or .max, then optionally "
                   ".per_second, .per_cycle_elapsed or .pct_of_peak_sustained_elapsed (ncu --query-metrics-mode suffix "
                   "--metrics " +
                       base + " lists them)"};
    }
    if (!catalog.metrics.empty() && !catalog.HasMetric(m)) {
      // Closest among base names: the metric's own suffixes are the user's to keep.
      std::vector<std::string> all(catalog.metrics.begin(), catalog.metrics.end());
      std::string near;
      for (const auto& c : Closest(std::string(MetricBase(m)), all, 4)) near += (near.empty() ? "'" : ", '") + c + "'";
      return Error{
          "ncu.metrics",
          fmt::format("{} on {} has no metric '{}'", version, catalog.device.empty() ? "this GPU" : catalog.device, m),
          near.empty() ? "see ncu --query-metrics" : "closest: " + near};
    }
  }
  return Status::Ok();
}

}  // namespace kscope::capture
