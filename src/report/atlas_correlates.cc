// kscope atlas's launch correlates as tables and JSON: per family, its figure binned by each
// launch parameter, and its outlying launch configurations.
#include <fmt/format.h>

#include "analysis/names/kernel_names.h"
#include "report/atlas_report.h"

namespace kscope::report {

namespace {

using analysis::atlas::Atlas;
using analysis::atlas::Grouping;

Decimal Num(double v, int decimals) { return {v, fmt::format("{:.{}f}", v, decimals)}; }

std::vector<std::string> KeyColumns(const Atlas& atlas) {
  if (atlas.grouping == Grouping::kKernel) return {"Kernel", "Family", "Library"};
  return {"Family", "Library"};
}

std::vector<Cell> KeyCells(const Atlas& atlas, const analysis::atlas::CorrelateRow& r) {
  if (atlas.grouping == Grouping::kKernel) return {r.key, r.family, r.library};
  return {r.family, r.library};
}

std::string Dims(const std::array<int64_t, 3>& d) { return fmt::format("({}, {}, {})", d[0], d[1], d[2]); }

Cell OptNum(const std::optional<double>& v, int decimals) { return v ? Cell(Num(*v, decimals)) : Cell(); }

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

nlohmann::json OptJson(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

// Whether an outlier has its launching op's shapes: the outliers table then has their column.
bool OutliersHaveShapes(const Atlas& atlas) {
  for (const auto& r : atlas.correlates) {
    for (const auto& o : r.outliers) {
      if (!o.shape.empty()) return true;
    }
  }
  return false;
}

}  // namespace

Table AtlasCorrelatesTable(const Atlas& atlas) {
  Table t;
  t.title = "Launch correlates (ncu): each family's figure per bin of a launch parameter, median [p25-p75]";
  t.columns = KeyColumns(atlas);
  for (const char* c : {"Figure", "Launches", "Median", "Parameter", "Bin", "Bin Launches", "Bin Figure"}) {
    t.columns.emplace_back(c);
  }
  for (const auto& r : atlas.correlates) {
    for (const auto& b : r.bins) {
      auto row = KeyCells(atlas, r);
      row.insert(row.end(), {std::string(FigureName(r.figure)), r.launches, Num(r.median, 1),
                             std::string(ParameterName(b.parameter)), b.bin, b.figure.launches,
                             fmt::format("{:.1f} [{:.1f}-{:.1f}]", b.figure.median, b.figure.p25, b.figure.p75)});
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

Table AtlasOutliersTable(const Atlas& atlas) {
  Table t;
  t.title = "Outliers: launch configurations far below their family's median (ncu)";
  t.columns = KeyColumns(atlas);
  for (const char* c : {"Figure", "Family Median", "Kernel Name", "Grid", "Block", "Waves", "Registers",
                        "Shared Memory (B)", "Launches", "Models", "Median", "% of Family Median"}) {
    t.columns.emplace_back(c);
  }
  const bool shapes = OutliersHaveShapes(atlas);
  if (shapes) t.columns.emplace_back("Shape");
  for (const auto& r : atlas.correlates) {
    for (const auto& o : r.outliers) {
      auto row = KeyCells(atlas, r);
      row.insert(row.end(), {std::string(FigureName(r.figure)), Num(r.median, 1),
                             analysis::IdentifyKernel(o.kernel).base, Dims(o.grid), Dims(o.block), OptNum(o.waves, 2),
                             OptNum(o.registers, 0), OptNum(o.shared_bytes, 0), o.launches, Joined(o.models),
                             Num(o.figure, 1), Num(r.median > 0 ? 100.0 * o.figure / r.median : 0, 1)});
      if (shapes) row.emplace_back(o.shape);
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

void ShortenShapes(Table& t) {
  constexpr size_t kMax = 80;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c] != "Bin" && t.columns[c] != "Shape") continue;
    for (auto& row : t.rows) {
      if (c >= row.size()) continue;
      const std::string text = CellText(row[c]);
      if (text.size() > kMax) row[c] = text.substr(0, kMax - 3) + "...";
    }
  }
}

nlohmann::json AtlasCorrelatesJson(const Atlas& atlas) {
  using nlohmann::json;
  json out = json::array();
  const std::map<std::string, std::string> short_names = AtlasShortNames(atlas);
  for (const auto& r : atlas.correlates) {
    json row{{"family", r.family},
             {"library", r.library},
             {"figure", FigureName(r.figure)},
             {"launches", r.launches},
             {"median", r.median}};
    if (atlas.grouping == Grouping::kKernel) {
      row["kernel"] = r.key;
      row["short_name"] = short_names.at(r.key);
    }
    row["bins"] = json::array();
    for (const auto& b : r.bins) {
      row["bins"].push_back({{"parameter", ParameterName(b.parameter)},
                             {"bin", b.bin},
                             {"lower", b.lower},
                             {"launches", b.figure.launches},
                             {"min", b.figure.min},
                             {"p25", b.figure.p25},
                             {"median", b.figure.median},
                             {"p75", b.figure.p75},
                             {"max", b.figure.max}});
    }
    row["outliers"] = json::array();
    for (const auto& o : r.outliers) {
      row["outliers"].push_back({{"kernel", o.kernel},
                                 {"grid", o.grid},
                                 {"block", o.block},
                                 {"waves", OptJson(o.waves)},
                                 {"registers", OptJson(o.registers)},
                                 {"shared_bytes", OptJson(o.shared_bytes)},
                                 {"models", o.models},
                                 {"launches", o.launches},
                                 {"median", o.figure}});
      if (!o.shape.empty()) row["outliers"].back()["shape"] = o.shape;
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace kscope::report
