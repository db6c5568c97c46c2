// kscope atlas on the zoo (tests/data/zoo/: real nsys exports and ncu pages of PyTorch
// workloads recorded on an H100). Popularity, per family and per kernel, against a computation
// of its own straight from the exports (SQL over CUPTI_ACTIVITY_KIND_KERNEL and StringIds,
// families from the name analysis); the terminal and CSV views of a fixed selection against
// goldens checked by eye; the performance figures against `kscope kernels` for the same launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/atlas/atlas.h"
#include "analysis/names/kernel_names.h"
#include "report/atlas_report.h"
#include "report/kernel_reports.h"
#include "zoo_support.h"

namespace kscope {
namespace {

using analysis::atlas::Atlas;
using analysis::atlas::Grouping;

// The runs of the zoo store: the encoder twice (two runs of one model), the ViT and the decoder
// training, each labelled by its model; the encoder's first run with its portable ncu page.
const std::vector<std::string> kRunModels{"encoder_bert", "encoder_bert", "vit_infer", "decoder_train"};

store::Store& ZooStore() {
  static store::Store store = [] {
    auto s = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
    for (size_t i = 0; i < kRunModels.size(); ++i) {
      import::ImportOptions opts;
      opts.manifest.label = kRunModels[i];
      auto out = import::ImportFiles(s, {testing::ZooFile(kRunModels[i], "discovery.sqlite")}, opts);
      EXPECT_TRUE(out.ok()) << out.error().Line();
      if (kRunModels[i] == "encoder_bert") {
        import::ImportOptions ncu;
        ncu.into_run = out->front().run_id;
        EXPECT_TRUE(import::ImportFiles(s, {testing::ZooFile("encoder_bert", "portable_raw.csv")}, ncu).ok());
      }
    }
    return s;
  }();
  return store;
}

Atlas Build(const analysis::atlas::RunFilter& filter, Grouping grouping) {
  auto atlas = analysis::atlas::BuildAtlas(ZooStore(), filter, grouping, {});
  EXPECT_TRUE(atlas.ok()) << atlas.error().Line();
  return atlas.ok() ? std::move(atlas).value() : Atlas{};
}

using Sum = testing::KernelSum;
// Launches and summed duration per kernel name of a zoo export (SQL on it), never empty.
std::map<std::string, Sum> ExportKernels(const std::string& model) {
  auto out = testing::ExportKernels(model);
  EXPECT_FALSE(out.empty()) << model;
  return out;
}

struct Expected {
  std::string library;
  int64_t launches = 0, ns = 0;
  std::set<std::string> models;
  int64_t runs = 0;
  std::map<std::string, int64_t> model_ns;
};

// The popularity the atlas should give over kRunModels, keyed by family or by name.
std::map<std::string, Expected> ExpectedPopularity(Grouping grouping, std::map<std::string, int64_t>& model_ns) {
  std::map<std::string, Expected> out;
  for (const auto& model : kRunModels) {
    std::set<std::string> in_run;
    for (const auto& [name, sum] : ExportKernels(model)) {
      const auto id = analysis::IdentifyKernel(name);
      const std::string key = grouping == Grouping::kFamily ? id.family : name;
      auto& e = out[key];
      e.library = std::string(analysis::LibraryName(id.library));
      e.launches += sum.launches;
      e.ns += sum.ns;
      e.models.insert(model);
      e.model_ns[model] += sum.ns;
      model_ns[model] += sum.ns;
      if (in_run.insert(key).second) ++e.runs;
    }
  }
  return out;
}

void ExpectPopularityFromExports(Grouping grouping) {
  const Atlas atlas = Build({}, grouping);
  std::map<std::string, int64_t> model_ns;
  const auto expected = ExpectedPopularity(grouping, model_ns);
  EXPECT_EQ(atlas.models, (std::vector<std::string>{"decoder_train", "encoder_bert", "vit_infer"}));
  ASSERT_EQ(atlas.runs.size(), kRunModels.size());
  ASSERT_EQ(atlas.popularity.size(), expected.size());
  for (const auto& row : atlas.popularity) {
    SCOPED_TRACE(row.key);
    auto it = expected.find(row.key);
    ASSERT_NE(it, expected.end());
    const auto& e = it->second;
    EXPECT_EQ(row.library, e.library);
    EXPECT_EQ(row.launches, e.launches);
    EXPECT_EQ(row.gpu_time_ns, e.ns);
    EXPECT_EQ(row.models, static_cast<int64_t>(e.models.size()));
    EXPECT_EQ(row.runs, e.runs);
    ASSERT_EQ(row.share_pct.size(), e.model_ns.size());
    for (const auto& [model, ns] : e.model_ns) {
      const double share = 100.0 * static_cast<double>(ns) / static_cast<double>(model_ns[model]);
      EXPECT_NEAR(row.share_pct.at(model), share, 1e-9) << model;
    }
  }
  // Largest first.
  for (size_t i = 1; i < atlas.popularity.size(); ++i) {
    EXPECT_GE(atlas.popularity[i - 1].gpu_time_ns, atlas.popularity[i].gpu_time_ns);
  }
  // Each model's shares add up to its whole GPU time.
  for (const auto& model : atlas.models) {
    double total = 0;
    for (const auto& row : atlas.popularity) {
      if (auto s = row.share_pct.find(model); s != row.share_pct.end()) total += s->second;
    }
    EXPECT_NEAR(total, 100.0, 1e-9) << model;
  }
}

TEST(AtlasZoo, FamilyPopularityEqualsTheExports) { ExpectPopularityFromExports(Grouping::kFamily); }

TEST(AtlasZoo, KernelPopularityEqualsTheExports) { ExpectPopularityFromExports(Grouping::kKernel); }

// By kernel, every profiled kernel of the encoder is keyed by nsys's spelling of its name, as in
// the popularity view, and the per-kernel rows add up to the per-family ones.
TEST(AtlasZoo, ProfiledKernelsCarryNsysNames) {
  const Atlas kernels = Build({}, Grouping::kKernel);
  const Atlas families = Build({}, Grouping::kFamily);
  std::set<std::string> nsys;
  for (const auto& row : kernels.popularity) nsys.insert(row.key);
  std::map<std::string, int64_t> launches;
  for (const auto& row : kernels.performance) {
    EXPECT_TRUE(nsys.contains(row.key)) << row.key;
    launches[row.family] += row.launches;
  }
  ASSERT_EQ(launches.size(), families.performance.size());
  for (const auto& row : families.performance) EXPECT_EQ(launches[row.key], row.launches) << row.key;
}

TEST(AtlasZoo, SelectionByRunLabelAndMissingRun) {
  analysis::atlas::RunFilter by_label;
  by_label.label = "encoder_bert";
  const Atlas encoder = Build(by_label, Grouping::kFamily);
  ASSERT_EQ(encoder.runs.size(), 2U);
  EXPECT_EQ(encoder.runs[0].id, 1);
  EXPECT_EQ(encoder.runs[1].id, 2);
  EXPECT_EQ(encoder.models, std::vector<std::string>{"encoder_bert"});
  for (const auto& row : encoder.popularity) EXPECT_EQ(row.runs, 2) << row.key;

  analysis::atlas::RunFilter missing;
  missing.run_ids = {9};
  auto none = analysis::atlas::BuildAtlas(ZooStore(), missing, Grouping::kFamily, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().Line(), "kscope: error: run 9: is not in the database; list the runs with: kscope runs");

  analysis::atlas::RunFilter no_match;
  no_match.model = "llama";
  none = analysis::atlas::BuildAtlas(ZooStore(), no_match, Grouping::kFamily, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().Line(),
            "kscope: error: atlas: no run matches the selection; list the runs and their manifests with: kscope runs");
}

// The median as the middle value or the mean of the two middle ones; min and max.
std::vector<double> MinMedianMax(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return {v.front(), n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.back()};
}

// The encoder's portable ncu page, in runs 1 and 2: per family, the launches, class mix and the
// spread of SM %, DRAM %, L1 and L2 hit rates and occupancy and the top stalls equal those of `kscope kernels 1` for
// its kernels, each launch counted once per run.
TEST(AtlasZoo, PerformanceEqualsKscopeKernels) {
  const Atlas atlas = Build({}, Grouping::kFamily);
  auto kernels = report::KernelsTable(ZooStore(), 1, {});
  ASSERT_TRUE(kernels.ok()) << kernels.error().Line();
  const auto& cols = kernels->columns;
  auto col = [&](const std::string& name) {
    return static_cast<size_t>(std::find(cols.begin(), cols.end(), name) - cols.begin());
  };
  const std::vector<std::string> figures{"SM (%)", "DRAM (%)", "L1 Hit (%)", "L2 Hit (%)", "Achieved Occupancy (%)"};
  struct Family {
    int64_t launches = 0;
    std::map<std::string, int64_t> classes, stalls;
    std::vector<std::vector<double>> values = std::vector<std::vector<double>>(5);
  };
  std::map<std::string, Family> expected;
  for (const auto& row : kernels->rows) {
    // One launch per kernel and shape (ncu's per-launch-config filter): its figures are the row's.
    ASSERT_EQ(std::get<int64_t>(row[col("Launches")]), 1);
    auto& f = expected[report::CellText(row[col("Family")])];
    f.launches += 2;
    f.classes[report::CellText(row[col("Class")])] += 2;
    if (const auto stall = report::CellText(row[col("Top Stall")]); !stall.empty()) f.stalls[stall] += 2;
    for (size_t i = 0; i < figures.size(); ++i) {
      const auto& cell = row[col(figures[i])];
      if (!std::holds_alternative<report::Decimal>(cell)) continue;
      f.values[i].push_back(std::get<report::Decimal>(cell).value);
      f.values[i].push_back(std::get<report::Decimal>(cell).value);
    }
  }
  ASSERT_EQ(atlas.performance.size(), expected.size());
  int64_t launches = 0;
  for (const auto& p : atlas.performance) {
    SCOPED_TRACE(p.key);
    ASSERT_TRUE(expected.contains(p.key));
    const auto& f = expected.at(p.key);
    EXPECT_EQ(p.launches, f.launches);
    EXPECT_EQ(p.runs, 2);
    EXPECT_EQ(p.models, 1);
    EXPECT_EQ(p.classes, f.classes);
    EXPECT_EQ(p.top_stalls, f.stalls);
    const std::vector<const analysis::atlas::Spread*> spreads{&p.sm_pct, &p.dram_pct, &p.l1_hit_pct, &p.l2_hit_pct,
                                                              &p.achieved_occupancy_pct};
    for (size_t i = 0; i < figures.size(); ++i) {
      SCOPED_TRACE(figures[i]);
      ASSERT_EQ(spreads[i]->launches, static_cast<int64_t>(f.values[i].size()));
      if (f.values[i].empty()) continue;
      const auto m = MinMedianMax(f.values[i]);
      EXPECT_DOUBLE_EQ(spreads[i]->min, m[0]);
      EXPECT_DOUBLE_EQ(spreads[i]->median, m[1]);
      EXPECT_DOUBLE_EQ(spreads[i]->max, m[2]);
      EXPECT_LE(spreads[i]->p25, spreads[i]->median);
      EXPECT_GE(spreads[i]->p75, spreads[i]->median);
    }
    launches += p.launches;
  }
  EXPECT_EQ(launches, 2 * static_cast<int64_t>(kernels->rows.size()));
  EXPECT_EQ(atlas.runs[0].profiled_launches, launches / 2);
  EXPECT_EQ(atlas.runs[1].profiled_launches, launches / 2);
  EXPECT_EQ(atlas.runs[2].profiled_launches, 0);
}

void ExpectGolden(const std::string& text, const std::string& golden) {
  const std::string path = std::string(KSCOPE_TEST_DATA_DIR) + "/atlas/" + golden;
  if (text != testing::ReadFile(path)) {
    const auto actual = std::filesystem::temp_directory_path() / (golden + ".actual");
    std::ofstream(actual) << text;
    ADD_FAILURE() << "differs from tests/data/atlas/" << golden << "; this run's is in " << actual;
  }
}

// Runs 1 (the profiled encoder) and 3 (the ViT): the terminal view and the CSV.
TEST(AtlasZoo, TerminalAndCsvOfTwoRuns) {
  analysis::atlas::RunFilter two;
  two.run_ids = {1, 3};
  const Atlas atlas = Build(two, Grouping::kFamily);
  std::ostringstream text, csv;
  report::WriteText(report::AtlasPopularityTable(atlas), text);
  text << "\n";
  report::WriteText(report::AtlasPerformanceTable(atlas), text);
  report::WriteCsv(report::AtlasPopularityTable(atlas), csv);
  csv << "\n";
  report::WriteCsv(report::AtlasPerformanceTable(atlas), csv);
  ExpectGolden(text.str(), "zoo_runs_1_3.txt");
  ExpectGolden(csv.str(), "zoo_runs_1_3.csv");
  ExpectGolden(report::AtlasJson(atlas).dump(2) + "\n", "zoo_runs_1_3.json");
}

TEST(AtlasSpread, QuantilesInterpolateBetweenSortedValues) {
  const auto s = analysis::atlas::SpreadOf({4, 1, 3, 2});
  EXPECT_EQ(s.launches, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.p25, 1.75);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p75, 3.25);
  EXPECT_DOUBLE_EQ(s.max, 4);
  const auto one = analysis::atlas::SpreadOf({7});
  EXPECT_DOUBLE_EQ(one.p25, 7);
  EXPECT_DOUBLE_EQ(one.p75, 7);
  EXPECT_EQ(analysis::atlas::SpreadOf({}).launches, 0);
}

}  // namespace
}  // namespace kscope
