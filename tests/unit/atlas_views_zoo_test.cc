// kscope atlas's launch correlates and systemic signals on five zoo workloads recorded on an
// H100 (tests/data/zoo/): each discovery export with its FLOP-counter ncu page (launch
// parameters, roofline, tensor pipe, occupancy), the encoder's portable page and the decoder's
// default-set page added. The terminal view and the JSON against goldens checked by eye; the
// launch-bound signal against SQL straight on the exports; the register-limited signal and the
// correlates' launches against the raw ncu pages, read here with a CSV reader of the test's own.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/atlas/atlas.h"
#include "analysis/names/kernel_names.h"
#include "report/atlas_html.h"
#include "report/atlas_report.h"
#include "zoo_support.h"

namespace kscope {
namespace {

using analysis::atlas::Atlas;
using analysis::atlas::Grouping;

struct ZooRun {
  std::string model;
  std::vector<std::string> ncu_pages;
};
const std::vector<ZooRun>& Runs() {
  static const std::vector<ZooRun> kRuns{
      {"encoder_bert", {"flops_all_raw.csv", "portable_raw.csv"}},
      {"decoder_infer", {"flops_all_raw.csv", "default_profile_raw.csv"}},
      {"vit_infer", {"flops_all_raw.csv"}},
      {"moe_decoder", {"flops_all_raw.csv"}},
      {"resnet_train", {"flops_all_raw.csv"}},
  };
  return kRuns;
}

store::Store& ZooStore() {
  static store::Store store = [] {
    auto s = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
    for (const auto& run : Runs()) {
      import::ImportOptions opts;
      opts.manifest.model = run.model;
      auto out = import::ImportFiles(s, {testing::ZooFile(run.model, "discovery.sqlite")}, opts);
      EXPECT_TRUE(out.ok()) << out.error().Line();
      for (const auto& page : run.ncu_pages) {
        import::ImportOptions ncu;
        ncu.into_run = out->front().run_id;
        auto added = import::ImportFiles(s, {testing::ZooFile(run.model, page)}, ncu);
        EXPECT_TRUE(added.ok()) << added.error().Line();
      }
    }
    return s;
  }();
  return store;
}

const Atlas& ZooAtlas(Grouping grouping = Grouping::kFamily) {
  static std::map<Grouping, Atlas> built;
  if (auto it = built.find(grouping); it != built.end()) return it->second;
  auto atlas = analysis::atlas::BuildAtlas(ZooStore(), {}, grouping, {});
  EXPECT_TRUE(atlas.ok()) << atlas.error().Line();
  return built[grouping] = atlas.ok() ? std::move(atlas).value() : Atlas{};
}

// ncu's raw CSV page: a header row, a units row, one row per launch; every field quoted.
std::vector<std::map<std::string, std::string>> ReadNcuRaw(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.push_back(field);
        field.clear();
      } else {
        field += c;
      }
    }
    fields.push_back(field);
    rows.push_back(std::move(fields));
  }
  std::vector<std::map<std::string, std::string>> out;
  for (size_t r = 2; r < rows.size(); ++r) {
    std::map<std::string, std::string> row;
    for (size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c) row[rows[0][c]] = rows[r][c];
    out.push_back(std::move(row));
  }
  return out;
}

std::optional<double> Number(const std::map<std::string, std::string>& row, const std::string& metric) {
  auto it = row.find(metric);
  if (it == row.end() || it->second.empty()) return std::nullopt;
  std::string digits;
  for (char c : it->second) {
    if (c != ',') digits += c;
  }
  try {
    return std::stod(digits);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void ExpectGolden(const std::string& text, const std::string& golden) {
  const std::string path = std::string(KSCOPE_TEST_DATA_DIR) + "/atlas/" + golden;
  if (text != testing::ReadFile(path)) {
    const auto actual = std::filesystem::temp_directory_path() / (golden + ".actual");
    std::ofstream(actual) << text;
    ADD_FAILURE() << "differs from tests/data/atlas/" << golden << "; this run's is in " << actual;
  }
}

TEST(AtlasViewsZoo, CorrelatesAndSignalsAgainstGoldens) {
  const Atlas& atlas = ZooAtlas();
  std::ostringstream text;
  for (const auto& table : {report::AtlasCorrelatesTable(atlas), report::AtlasOutliersTable(atlas),
                            report::AtlasSignalsTable(atlas), report::AtlasSignalFamiliesTable(atlas)}) {
    report::WriteText(table, text);
    text << "\n";
  }
  ExpectGolden(text.str(), "zoo_views.txt");
}

// The JSON of both views over the encoder and the ViT (runs 1 and 3): every field.
TEST(AtlasViewsZoo, JsonOfTwoRunsAgainstGolden) {
  analysis::atlas::RunFilter two;
  two.run_ids = {1, 3};
  auto atlas = analysis::atlas::BuildAtlas(ZooStore(), two, Grouping::kFamily, {});
  ASSERT_TRUE(atlas.ok()) << atlas.error().Line();
  const nlohmann::json json{{"correlates", report::AtlasCorrelatesJson(*atlas)},
                            {"signals", report::AtlasSignalsJson(*atlas)}};
  ExpectGolden(json.dump(2) + "\n", "zoo_views_runs_1_3.json");
}

// atlas.html escapes every name: the outliers' ATen kernels (templates, '<unnamed>') appear
// only as character references in the page and as \u003c escapes in its embedded JSON.
TEST(AtlasViewsZoo, HtmlEscapesEveryName) {
  std::ostringstream page;
  ASSERT_TRUE(report::WriteAtlasHtml(ZooAtlas(), page).ok());
  const std::string html = page.str();
  EXPECT_EQ(html.find("::<unnamed>"), std::string::npos);
  EXPECT_NE(html.find("at::native::&lt;unnamed&gt;::CatArrayBatchedCopy"), std::string::npos);
  EXPECT_NE(html.find("\\u003cunnamed\\u003e"), std::string::npos);
  for (const char* section :
       {"id=\"popularity\"", "id=\"performance\"", "id=\"correlates\"", "id=\"signals\"",
        "data-chart=\"atlas-popularity\" data-state=\"pending\"", "data-chart=\"atlas-classes\" data-state=\"pending\"",
        "data-chart=\"atlas-correlates\" data-state=\"pending\""}) {
    EXPECT_NE(html.find(section), std::string::npos) << section;
  }
}

// Every profiled launch of a family falls in exactly one block-size bin, and the launches
// with the family's figure are those of the raw pages that have it: % of roof where a page
// carries the FLOP counters, SM throughput otherwise.
TEST(AtlasViewsZoo, CorrelateBinsHoldEveryLaunchOnce) {
  const Atlas& atlas = ZooAtlas();
  ASSERT_FALSE(atlas.correlates.empty());
  for (const auto& row : atlas.correlates) {
    SCOPED_TRACE(row.key);
    int64_t in_bins = 0;
    for (const auto& b : row.bins) {
      if (b.parameter == analysis::atlas::Parameter::kBlockThreads) in_bins += b.figure.launches;
    }
    EXPECT_EQ(in_bins, row.launches);
    for (size_t i = 1; i < row.outliers.size(); ++i) EXPECT_LE(row.outliers[i - 1].figure, row.outliers[i].figure);
    for (const auto& o : row.outliers) EXPECT_LT(o.figure, 0.5 * row.median);
  }
  // Per family, the launches the raw pages hold.
  std::map<std::string, int64_t> page_launches;
  for (const auto& run : Runs()) {
    for (const auto& page : run.ncu_pages) {
      for (const auto& l : ReadNcuRaw(testing::ZooFile(run.model, page))) {
        ++page_launches[analysis::IdentifyKernel(l.at("Kernel Name")).family];
      }
    }
  }
  int64_t profiled = 0;
  for (const auto& r : atlas.runs) profiled += r.profiled_launches;
  int64_t pages = 0;
  for (const auto& [family, n] : page_launches) pages += n;
  EXPECT_EQ(profiled, pages);
  for (const auto& p : atlas.performance) EXPECT_EQ(p.launches, page_launches[p.family]) << p.family;
}

// Launch-bound families from SQL on the exports: per family, launches per run that launches it
// at or above atlas.many_launches (1000) and a mean duration under classify.launch_us (5 us).
TEST(AtlasViewsZoo, LaunchBoundFamiliesFromTheExports) {
  struct Family {
    int64_t launches = 0, ns = 0, runs = 0;
    std::set<std::string> models;
  };
  std::map<std::string, Family> families;
  int64_t all_ns = 0;
  for (const auto& run : Runs()) {
    std::set<std::string> in_run;
    for (const auto& [name, sum] : testing::ExportKernels(run.model)) {
      const std::string family = analysis::IdentifyKernel(name).family;
      auto& f = families[family];
      f.launches += sum.launches;
      f.ns += sum.ns;
      f.models.insert(run.model);
      if (in_run.insert(family).second) ++f.runs;
      all_ns += sum.ns;
    }
  }
  std::map<std::string, int64_t> expected;  // family -> GPU time
  int64_t flagged_ns = 0;
  for (const auto& [family, f] : families) {
    if (f.launches >= 1000 * f.runs && static_cast<double>(f.ns) / static_cast<double>(f.launches) < 5000) {
      expected[family] = f.ns;
      flagged_ns += f.ns;
    }
  }
  ASSERT_FALSE(expected.empty());
  const auto& signal = ZooAtlas().signals.at(3);
  ASSERT_EQ(signal.id, "launch_bound");
  EXPECT_EQ(signal.state, analysis::atlas::SignalState::kFound);
  EXPECT_EQ(signal.families_with_data, static_cast<int64_t>(families.size()));
  std::map<std::string, int64_t> got;
  for (const auto& f : signal.families) {
    got[f.family] = f.gpu_time_ns;
    EXPECT_EQ(f.launches, families[f.family].launches) << f.family;
    EXPECT_EQ(std::set<std::string>(f.models.begin(), f.models.end()), families[f.family].models) << f.family;
  }
  EXPECT_EQ(got, expected);
  EXPECT_NEAR(signal.gpu_time_pct, 100.0 * static_cast<double>(flagged_ns) / static_cast<double>(all_ns), 1e-9);
}

// Register-limited occupancy from the raw pages: registers allow the fewest blocks per SM
// (launch__occupancy_limit_registers at or below every other limit) and theoretical occupancy
// under atlas.register_occupancy_pct (50); a family shows it when half its launches that have
// the metrics do.
TEST(AtlasViewsZoo, RegisterLimitedFamiliesFromTheRawPages) {
  const std::vector<std::string> others{"launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
                                        "launch__occupancy_limit_blocks", "launch__occupancy_limit_barriers"};
  std::map<std::string, std::pair<int64_t, int64_t>> tally;  // family -> (with metrics, matching)
  for (const auto& run : Runs()) {
    for (const auto& page : run.ncu_pages) {
      for (const auto& l : ReadNcuRaw(testing::ZooFile(run.model, page))) {
        const auto regs = Number(l, "launch__occupancy_limit_registers");
        const auto theoretical = Number(l, "sm__maximum_warps_per_active_cycle_pct");
        if (!regs || !theoretical) continue;
        bool fewest = true;
        for (const auto& m : others) {
          if (auto v = Number(l, m); v && *v < *regs) fewest = false;
        }
        const auto identity = analysis::IdentifyKernel(l.at("Kernel Name"));
        auto& t = tally[identity.family];
        ++t.first;
        // Vendor GEMM, convolution and attention kernels hold their registers by design.
        const auto lib = identity.library;
        const bool by_design = lib == analysis::KernelLibrary::kCublas || lib == analysis::KernelLibrary::kCutlass ||
                               lib == analysis::KernelLibrary::kCudnn ||
                               lib == analysis::KernelLibrary::kFlashAttention;
        if (fewest && *theoretical < 50 && !by_design) ++t.second;
      }
    }
  }
  std::set<std::string> expected;
  for (const auto& [family, t] : tally) {
    if (t.second > 0 && 2 * t.second >= t.first) expected.insert(family);
  }
  ASSERT_FALSE(expected.empty());
  const auto& signal = ZooAtlas().signals.at(2);
  ASSERT_EQ(signal.id, "register_limited_occupancy");
  EXPECT_EQ(signal.families_with_data, static_cast<int64_t>(tally.size()));
  std::set<std::string> got;
  for (const auto& f : signal.families) {
    got.insert(f.family);
    EXPECT_EQ(f.launches, tally[f.family].first) << f.family;
    EXPECT_EQ(f.matching, tally[f.family].second) << f.family;
  }
  EXPECT_EQ(got, expected);
}

// By kernel, the correlates are keyed like the other views, and the signals stay per family.
TEST(AtlasViewsZoo, ByKernelKeysCorrelatesLikePerformance) {
  const Atlas& kernels = ZooAtlas(Grouping::kKernel);
  std::set<std::string> performance;
  for (const auto& p : kernels.performance) performance.insert(p.key);
  for (const auto& c : kernels.correlates) EXPECT_TRUE(performance.contains(c.key)) << c.key;
  ASSERT_EQ(kernels.signals.size(), ZooAtlas().signals.size());
  for (size_t i = 0; i < kernels.signals.size(); ++i) {
    EXPECT_EQ(kernels.signals[i].families.size(), ZooAtlas().signals[i].families.size()) << kernels.signals[i].id;
  }
}

// Without ncu data, every ncu signal says so; the launch-bound one rests on nsys alone.
TEST(AtlasViewsZoo, NotEnoughDataWithoutNcu) {
  auto store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  ASSERT_GT(testing::ImportZoo(store, "vit_infer"), 0);
  auto atlas = analysis::atlas::BuildAtlas(store, {}, Grouping::kFamily, {});
  ASSERT_TRUE(atlas.ok()) << atlas.error().Line();
  EXPECT_TRUE(atlas->correlates.empty());
  ASSERT_EQ(atlas->signals.size(), 4U);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(atlas->signals[i].state, analysis::atlas::SignalState::kNotEnoughData) << atlas->signals[i].id;
    EXPECT_EQ(atlas->signals[i].families_with_data, 0);
  }
  EXPECT_NE(atlas->signals[3].state, analysis::atlas::SignalState::kNotEnoughData);
}

}  // namespace
}  // namespace kscope
