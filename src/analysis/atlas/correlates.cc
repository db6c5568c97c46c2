// Launch correlates: per family (or kernel), its launches' performance (% of roof, else SM %)
// binned by each launch parameter, and the launch configurations far below the family's median.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "analysis/atlas/parts.h"

namespace kscope::analysis::atlas {

namespace {

constexpr Parameter kParameters[] = {Parameter::kWaves, Parameter::kGridBlocks, Parameter::kBlockThreads,
                                     Parameter::kRegisters, Parameter::kSharedMemory};

struct Sample {
  std::optional<double> roof, sm;
  std::optional<double> params[5];  // by kParameters' order
  size_t config = 0;                // index into the family's configurations
  int shape = -1;                   // index into the family's shapes; -1 when unknown
};

// The shapes with most launches a family's shape bins show.
constexpr size_t kMaxShapeBins = 8;

constexpr double kWaveEdges[] = {0, 0.25, 0.5, 1, 2, 4, 8, 16};
constexpr double kSharedKiB[] = {0, 4, 16, 64, 256};

// The bin of v (each bin's lower edge is in it, its upper edge is not; the last one is open):
// its lower edge, and for the two shared-memory bins that start at 0, 0 for "0" and 1 for
// "0-4 KiB" (the order of their labels).
using BinPosition = std::pair<double, int>;
BinPosition BinOf(Parameter p, double v) {
  switch (p) {
    case Parameter::kWaves: {
      size_t i = 0;
      while (i + 1 < std::size(kWaveEdges) && v >= kWaveEdges[i + 1]) ++i;
      return {kWaveEdges[i], 0};
    }
    case Parameter::kGridBlocks: {
      double lower = 1;
      while (lower * 4 <= v && lower < 65536) lower *= 4;
      return {lower, 0};
    }
    case Parameter::kBlockThreads: return {v, 0};
    case Parameter::kRegisters: return {32 * std::max(0.0, std::ceil(v / 32) - 1) + 1, 0};
    case Parameter::kShape: return {};  // binned by name (ShapeBins)
    case Parameter::kSharedMemory: {
      if (v <= 0) return {0, 0};
      size_t i = 0;
      while (i + 1 < std::size(kSharedKiB) && v > kSharedKiB[i + 1] * 1024) ++i;
      return {kSharedKiB[i] * 1024, 1};
    }
  }
  return {};
}

// "1-2", "16+", "64-255", "256", "33-64", "0", "16-64 KiB".
std::string BinLabel(Parameter p, const BinPosition& bin) {
  const double lower = bin.first;
  switch (p) {
    case Parameter::kWaves: {
      const auto* next = std::upper_bound(std::begin(kWaveEdges), std::end(kWaveEdges), lower);
      if (next == std::end(kWaveEdges)) return fmt::format("{:g}+", lower);
      return fmt::format("{:g}-{:g}", lower, *next);
    }
    case Parameter::kGridBlocks:
      return lower >= 65536 ? std::string("65536+") : fmt::format("{:g}-{:g}", lower, lower * 4 - 1);
    case Parameter::kBlockThreads: return fmt::format("{:g}", lower);
    case Parameter::kRegisters: return fmt::format("{:g}-{:g}", lower, lower + 31);
    case Parameter::kShape: return "";
    case Parameter::kSharedMemory: {
      if (bin.second == 0) return "0";
      const double kib = lower / 1024;
      const auto* next = std::upper_bound(std::begin(kSharedKiB), std::end(kSharedKiB), kib);
      if (next == std::end(kSharedKiB)) return fmt::format("{:g}+ KiB", kib);
      return fmt::format("{:g}-{:g} KiB", kib, *next);
    }
  }
  return "";
}

// A launch configuration: the kernel (ProfiledLaunch::kernel_index), grid, block, registers
// and shared memory (-1 when not measured), and shape (-1 when unknown).
using ConfigKey = std::tuple<size_t, std::array<int64_t, 3>, std::array<int64_t, 3>, double, double, int>;

}  // namespace

std::string_view FigureName(Figure f) { return f == Figure::kRoof ? "% of roof" : "SM %"; }

std::string_view ParameterName(Parameter p) {
  switch (p) {
    case Parameter::kWaves: return "waves per SM";
    case Parameter::kGridBlocks: return "grid blocks";
    case Parameter::kBlockThreads: return "block threads";
    case Parameter::kRegisters: return "registers per thread";
    case Parameter::kSharedMemory: return "shared memory per block";
    case Parameter::kShape: return "shape";
  }
  return "";
}

struct CorrelatesTally::Family {
  std::string family, library;
  std::vector<Sample> samples;
  std::map<ConfigKey, size_t> config_index;
  std::vector<LaunchConfig> configs;
  std::vector<RunsAndModels> config_models;
  std::map<std::string, int, std::less<>> shape_index;
  std::vector<std::string> shapes;
};

void CorrelatesTally::Add(const ProfiledLaunch& l) {
  Family* found = by_name_.Find(l.name_index);
  if (found == nullptr) {
    auto& ptr = families_[l.key];
    if (!ptr) {
      ptr = std::make_shared<Family>();
      ptr->family = l.identity.family;
      ptr->library = std::string(LibraryName(l.identity.library));
    }
    found = ptr.get();
    by_name_.Set(l.name_index, found);
  }
  auto& f = *found;
  const auto& k = l.launch;
  const auto& figures = k.figures;
  Sample s;
  s.roof = figures.roof_pct;
  s.sm = figures.class_figures.sm_pct;
  s.params[0] = figures.class_figures.waves;
  s.params[1] = static_cast<double>(k.grid[0] * k.grid[1] * k.grid[2]);
  s.params[2] = static_cast<double>(k.block[0] * k.block[1] * k.block[2]);
  s.params[3] = figures.registers;
  s.params[4] = figures.shared_bytes;
  if (!k.shape.empty()) {
    auto shape = f.shape_index.find(k.shape);
    if (shape == f.shape_index.end()) {
      shape = f.shape_index.emplace(k.shape, static_cast<int>(f.shapes.size())).first;
      f.shapes.push_back(k.shape);
    }
    s.shape = shape->second;
  }
  const ConfigKey key{l.kernel_index, k.grid, k.block, s.params[3].value_or(-1), s.params[4].value_or(-1), s.shape};
  auto [it, added] = f.config_index.emplace(key, f.configs.size());
  if (added) {
    LaunchConfig c;
    c.kernel = l.kernel;
    c.grid = k.grid;
    c.block = k.block;
    c.waves = s.params[0];
    c.registers = s.params[3];
    c.shared_bytes = s.params[4];
    if (s.shape >= 0) c.shape = f.shapes[static_cast<size_t>(s.shape)];
    f.configs.push_back(std::move(c));
    f.config_models.emplace_back();
  }
  s.config = it->second;
  f.config_models[s.config].Add(l);
  f.samples.push_back(s);
}

void CorrelatesTally::Finish(Atlas& atlas) {
  for (auto& [key, ptr] : families_) {
    auto& f = *ptr;
    CorrelateRow row;
    row.key = key;
    row.family = f.family;
    row.library = f.library;
    const bool roof = std::any_of(f.samples.begin(), f.samples.end(), [](const Sample& s) { return s.roof; });
    row.figure = roof ? Figure::kRoof : Figure::kSm;
    auto figure = [&](const Sample& s) { return roof ? s.roof : s.sm; };
    std::vector<double> all;
    std::vector<std::vector<double>> per_config(f.configs.size());
    for (const Sample& s : f.samples) {
      if (auto v = figure(s)) {
        all.push_back(*v);
        per_config[s.config].push_back(*v);
      }
    }
    if (all.empty()) continue;  // neither a roofline nor SM throughput: nothing to correlate
    row.launches = static_cast<int64_t>(all.size());
    row.median = SpreadOf(all).median;
    for (size_t p = 0; p < std::size(kParameters); ++p) {
      std::map<BinPosition, std::vector<double>> bins;
      for (const Sample& s : f.samples) {
        auto v = figure(s);
        if (v && s.params[p]) bins[BinOf(kParameters[p], *s.params[p])].push_back(*v);
      }
      for (auto& [bin, values] : bins) {
        row.bins.push_back({kParameters[p], BinLabel(kParameters[p], bin), bin.first, SpreadOf(std::move(values))});
      }
    }
    // By shape: the shapes with most launches (then by name), a bounded number of them.
    std::vector<std::vector<double>> per_shape(f.shapes.size());
    for (const Sample& s : f.samples) {
      auto v = figure(s);
      if (v && s.shape >= 0) per_shape[static_cast<size_t>(s.shape)].push_back(*v);
    }
    std::vector<size_t> ranked;
    for (size_t i = 0; i < per_shape.size(); ++i) {
      if (!per_shape[i].empty()) ranked.push_back(i);
    }
    std::sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) {
      if (per_shape[a].size() != per_shape[b].size()) return per_shape[a].size() > per_shape[b].size();
      return f.shapes[a] < f.shapes[b];
    });
    if (ranked.size() > kMaxShapeBins) ranked.resize(kMaxShapeBins);
    for (size_t rank = 0; rank < ranked.size(); ++rank) {
      row.bins.push_back({Parameter::kShape, f.shapes[ranked[rank]], static_cast<double>(rank),
                          SpreadOf(std::move(per_shape[ranked[rank]]))});
    }
    for (size_t c = 0; c < f.configs.size(); ++c) {
      if (per_config[c].empty()) continue;
      auto& config = f.configs[c];
      config.launches = static_cast<int64_t>(per_config[c].size());
      config.figure = SpreadOf(per_config[c]).median;
      config.models = f.config_models[c].ModelNames(atlas);
      if (row.launches >= thresholds_.outlier_min_launches &&
          config.figure < thresholds_.outlier_fraction * row.median) {
        row.outliers.push_back(config);
      }
    }
    std::stable_sort(row.outliers.begin(), row.outliers.end(),
                     [](const LaunchConfig& a, const LaunchConfig& b) { return a.figure < b.figure; });
    atlas.correlates.push_back(std::move(row));
  }
  std::stable_sort(atlas.correlates.begin(), atlas.correlates.end(),
                   [](const CorrelateRow& a, const CorrelateRow& b) { return a.launches > b.launches; });
}

}  // namespace kscope::analysis::atlas
