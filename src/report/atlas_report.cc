#include "report/atlas_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/names/short_names.h"

namespace kscope::report {

namespace {

using analysis::atlas::Atlas;
using analysis::atlas::Grouping;
using analysis::atlas::Spread;

Decimal Num(double v, int decimals) { return {v, fmt::format("{:.{}f}", v, decimals)}; }

Cell SpreadCell(const Spread& s, int64_t launches) {
  if (s.launches == 0) return {};
  std::string text = fmt::format("{:.1f} [{:.1f}-{:.1f}]", s.median, s.p25, s.p75);
  if (s.launches != launches) text += fmt::format(" of {}", s.launches);
  return text;
}

std::string Mix(const std::map<std::string, int64_t>& counts) {
  std::vector<std::pair<std::string, int64_t>> mix(counts.begin(), counts.end());
  std::stable_sort(mix.begin(), mix.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [name, n] : mix) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, n);
  return out;
}

std::vector<std::string> KeyColumns(const Atlas& atlas) {
  if (atlas.grouping == Grouping::kKernel) return {"Kernel", "Family", "Library"};
  return {"Family", "Library"};
}

std::vector<Cell> KeyCells(const Atlas& atlas, const std::string& key, const std::string& family,
                           const std::string& library) {
  if (atlas.grouping == Grouping::kKernel) return {key, family, library};
  return {family, library};
}

nlohmann::json SpreadJson(const Spread& s) {
  nlohmann::json j{{"launches", s.launches}};
  if (s.launches == 0) return j;
  j["min"] = s.min;
  j["p25"] = s.p25;
  j["median"] = s.median;
  j["p75"] = s.p75;
  j["max"] = s.max;
  return j;
}

}  // namespace

Table AtlasPopularityTable(const Atlas& atlas) {
  Table t;
  t.title = fmt::format("{} popularity (nsys): {} runs, {} models",
                        atlas.grouping == Grouping::kKernel ? "Kernel" : "Kernel family", atlas.runs.size(),
                        atlas.models.size());
  t.columns = KeyColumns(atlas);
  for (const char* c : {"Models", "Runs", "Launches", "GPU Time (ms)", "GPU Time %"}) t.columns.emplace_back(c);
  for (const auto& m : atlas.models) t.columns.push_back(m + " %");
  int64_t all_ns = 0;
  for (const auto& r : atlas.runs) all_ns += r.kernel_ns;
  for (const auto& p : atlas.popularity) {
    auto row = KeyCells(atlas, p.key, p.family, p.library);
    const double share = all_ns > 0 ? 100.0 * static_cast<double>(p.gpu_time_ns) / static_cast<double>(all_ns) : 0;
    row.insert(row.end(),
               {p.models, p.runs, p.launches, Num(static_cast<double>(p.gpu_time_ns) / 1e6, 3), Num(share, 1)});
    for (const auto& m : atlas.models) {
      auto it = p.share_pct.find(m);
      row.push_back(it != p.share_pct.end() ? Cell(Num(it->second, 1)) : Cell());
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table AtlasPerformanceTable(const Atlas& atlas) {
  Table t;
  t.title = fmt::format("Performance per {} over the profiled launches (ncu): median [p25-p75]",
                        atlas.grouping == Grouping::kKernel ? "kernel" : "family");
  t.columns = KeyColumns(atlas);
  for (const char* c : {"Models", "Runs", "Profiled Launches", "SM %", "DRAM %", "L1 Hit %", "L2 Hit %",
                        "Achieved Occupancy %", "Theoretical Occupancy %", "Classes", "Top Stalls"}) {
    t.columns.emplace_back(c);
  }
  for (const auto& p : atlas.performance) {
    auto row = KeyCells(atlas, p.key, p.family, p.library);
    row.insert(row.end(), {p.models, p.runs, p.launches, SpreadCell(p.sm_pct, p.launches),
                           SpreadCell(p.dram_pct, p.launches), SpreadCell(p.l1_hit_pct, p.launches),
                           SpreadCell(p.l2_hit_pct, p.launches), SpreadCell(p.achieved_occupancy_pct, p.launches),
                           SpreadCell(p.theoretical_occupancy_pct, p.launches), Mix(p.classes), Mix(p.top_stalls)});
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::map<std::string, std::string> AtlasShortNames(const Atlas& atlas) {
  if (atlas.grouping != Grouping::kKernel) return {};
  std::vector<std::string> keys;
  for (const auto& p : atlas.popularity) keys.push_back(p.key);
  for (const auto& p : atlas.performance) keys.push_back(p.key);
  for (const auto& c : atlas.correlates) keys.push_back(c.key);
  const std::vector<std::string> shorts = analysis::ShortKernelNames(keys);
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < keys.size(); ++i) out.emplace(keys[i], shorts[i]);
  return out;
}

nlohmann::json AtlasJson(const Atlas& atlas) {
  using nlohmann::json;
  const bool by_kernel = atlas.grouping == Grouping::kKernel;
  const std::map<std::string, std::string> short_names = AtlasShortNames(atlas);
  json out{{"kscope_atlas", 1}, {"grouping", by_kernel ? "kernel" : "family"}, {"models", atlas.models}};
  out["runs"] = json::array();
  for (const auto& r : atlas.runs) {
    out["runs"].push_back({{"id", r.id},
                           {"model", r.model},
                           {"launches", r.launches},
                           {"gpu_time_ns", r.kernel_ns},
                           {"profiled_launches", r.profiled_launches}});
  }
  out["popularity"] = json::array();
  for (const auto& p : atlas.popularity) {
    json row{{"family", p.family},     {"library", p.library},         {"models", p.models},  {"runs", p.runs},
             {"launches", p.launches}, {"gpu_time_ns", p.gpu_time_ns}, {"share", p.share_pct}};
    if (by_kernel) row["kernel"] = p.key;
    if (by_kernel) row["short_name"] = short_names.at(p.key);
    out["popularity"].push_back(std::move(row));
  }
  out["performance"] = json::array();
  for (const auto& p : atlas.performance) {
    json row{{"family", p.family},
             {"library", p.library},
             {"models", p.models},
             {"runs", p.runs},
             {"launches", p.launches},
             {"sm_pct", SpreadJson(p.sm_pct)},
             {"dram_pct", SpreadJson(p.dram_pct)},
             {"l1_hit_pct", SpreadJson(p.l1_hit_pct)},
             {"l2_hit_pct", SpreadJson(p.l2_hit_pct)},
             {"achieved_occupancy_pct", SpreadJson(p.achieved_occupancy_pct)},
             {"theoretical_occupancy_pct", SpreadJson(p.theoretical_occupancy_pct)},
             {"classes", p.classes},
             {"top_stalls", p.top_stalls}};
    if (by_kernel) row["kernel"] = p.key;
    if (by_kernel) row["short_name"] = short_names.at(p.key);
    out["performance"].push_back(std::move(row));
  }
  out["correlates"] = AtlasCorrelatesJson(atlas);
  out["signals"] = AtlasSignalsJson(atlas);
  out["communication"] = AtlasCommunicationJson(atlas);
  return out;
}

}  // namespace kscope::report
