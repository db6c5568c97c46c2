// The native .ncu-rep importer against the import of ncu's own raw page of the same report:
// the same launches linked to the same nsys kernels, the same metrics stored, and the launch
// figures derived beside the import equal those derived from the store.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernels/launch_figures.h"
#include "analysis/kernels/ncu_launches.h"
#include "import/import_files.h"
#include "import/ncu/rep_importer.h"
#include "import/ncu/units.h"
#include "ncu_rep_support.h"
#include "store/store.h"

namespace kscope {
namespace {

using testing::Expected;
using testing::RawPage;
using testing::ReadCsv;
using testing::Report;
using testing::UnitVaries;

class NcuRepImport : public ::testing::TestWithParam<Expected> {};

// Added to the nsys run of the same workload, the report's launches link to the same nsys
// kernels as its raw page's do (by name, shape and NVTX range: the report's full demangled
// names match nsys's as well as the page's shortened ones).
TEST(NcuRepLinks, SameNsysKernelsAsThePage) {
  auto links = [](const std::string& ncu_file) {
    auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    EXPECT_TRUE(s.ok());
    auto nsys = import::ImportFiles(*s, {std::string(KSCOPE_TEST_DATA_DIR) + "/nsys/llama.sqlite"}, {});
    EXPECT_TRUE(nsys.ok());
    import::ImportOptions into;
    into.into_run = nsys->front().run_id;
    auto ncu = import::ImportFiles(*s, {ncu_file}, into);
    EXPECT_TRUE(ncu.ok()) << ncu.error().Line();
    std::vector<std::optional<int64_t>> out;
    auto launches = analysis::LoadNcuLaunches(*s, into.into_run);
    EXPECT_TRUE(launches.ok());
    for (const auto& l : *launches) out.push_back(l.kernel_index);
    return out;
  };
  const auto native = links(Report("llama_decode_quick"));
  ASSERT_EQ(native.size(), 80U);
  EXPECT_EQ(std::count(native.begin(), native.end(), std::nullopt), 0);
  EXPECT_EQ(native, links(testing::NcuDataDir() + "llama_decode_quick_raw.csv"));
}

std::vector<analysis::NcuLaunch> Imported(const std::string& file) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  EXPECT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {file}, {});
  EXPECT_TRUE(out.ok()) << out.error().Line();
  if (!out.ok()) return {};
  auto launches = analysis::LoadNcuLaunches(*s, out->front().run_id);
  EXPECT_TRUE(launches.ok());
  return launches.ok() ? *launches : std::vector<analysis::NcuLaunch>{};
}

// Each launch's figures as the native importer derives them while writing the metrics
// (LaunchFiguresBuilder, on a thread of its own) equal the figures derived again from the
// stored metrics, as every other import derives them.
TEST_P(NcuRepImport, FiguresDerivedBesideTheImportEqualThoseFromTheStore) {
  const Expected& e = GetParam();
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto run = s->CreateRun({});
  ASSERT_TRUE(run.ok());
  store::SourceFile file;
  file.path = Report(e.name);
  file.format = "ncu-rep";
  auto source = s->AddSourceFile(*run, file);
  ASSERT_TRUE(source.ok()) << source.error().Line();
  analysis::NsysFacts facts;
  import::ncu::NcuRepImporter importer;
  auto imported = importer.Import(Report(e.name), import::ImportTarget{*s, *run, *source, facts, 0});
  ASSERT_TRUE(imported.ok()) << imported.error().Line();
  ASSERT_TRUE(imported->launch_figures.has_value());
  const auto& beside = *imported->launch_figures;
  ASSERT_TRUE(analysis::MaterializeLaunchFigures(*s, *run).ok());
  std::vector<analysis::StoredLaunch> from_store;
  auto reader = analysis::StoredLaunchReader::Open(*s);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(reader->ForEach(*run, [&](const analysis::StoredLaunch& l) { from_store.push_back(l); }).ok());
  ASSERT_EQ(beside.size(), e.launches);
  ASSERT_EQ(from_store.size(), e.launches);
  size_t with_throughput = 0;
  for (size_t i = 0; i < beside.size(); ++i) {
    EXPECT_EQ(beside[i].first, from_store[i].launch_id);
    EXPECT_TRUE(beside[i].second == from_store[i].figures) << e.name << " launch " << i;
    with_throughput += beside[i].second.class_figures.sm_pct.has_value() ? 1 : 0;
  }
  EXPECT_EQ(with_throughput, e.launches) << "launches without figures would compare nothing";
}

// `kscope import R.ncu-rep` stores what importing ncu's raw page of R stores: the same
// launches, and every metric with the same unit and text, and its value to within the
// page's rounding (six decimals in the printed unit, two for unitless fractions).
TEST_P(NcuRepImport, ImportStoresWhatThePageImportStores) {
  const Expected& e = GetParam();
  const std::string page = RawPage(e.name);
  const auto native = Imported(Report(e.name));
  const auto csv = Imported(page);
  ASSERT_EQ(native.size(), e.launches);
  ASSERT_EQ(csv.size(), e.launches);
  const auto rows = ReadCsv(page);
  std::map<std::string, double> tolerance;  // per metric, in its base unit
  for (size_t col = 11; col < rows[0].size(); ++col) {
    const auto unit = import::ncu::NormalizeUnit(rows[1][col]);
    tolerance[rows[0][col]] = rows[1][col].empty() ? 0.005 : 0.5e-6 * unit.factor;
  }
  size_t compared = 0;
  std::vector<std::string> wrong;
  for (size_t i = 0; i < csv.size(); ++i) {
    const auto& n = native[i];
    const auto& c = csv[i];
    EXPECT_EQ(n.key.ncu_id, c.key.ncu_id);
    EXPECT_EQ(n.key.pid, c.key.pid);
    EXPECT_EQ(n.key.process, c.key.process);
    EXPECT_EQ(n.key.host, c.key.host);
    EXPECT_EQ(n.key.context, c.key.context);
    EXPECT_EQ(n.key.stream, c.key.stream);
    EXPECT_EQ(n.key.device, c.key.device);
    EXPECT_EQ(n.key.cc, c.key.cc);
    EXPECT_EQ(n.key.grid, c.key.grid);
    EXPECT_EQ(n.key.block, c.key.block);
    EXPECT_EQ(n.key.nvtx, c.key.nvtx);
    for (const auto& [name, want] : c.metrics) {
      // ncu prints this one per Kbyte with the value divided by 1,000 (docs/ncu-rep.md).
      if (name == "derived__pct_occupancy_per_shared_mem_size") continue;
      ++compared;
      auto it = n.metrics.find(name);
      if (it == n.metrics.end()) {
        if (want.number || !want.text.empty()) wrong.push_back(name + " missing");
        continue;
      }
      const auto& got = it->second;
      const bool same_number =
          got.number.has_value() == want.number.has_value() &&
          (!want.number || std::fabs(*got.number - *want.number) <= tolerance[name] + 1e-12 * std::fabs(*want.number));
      if (!same_number || got.text != want.text || (got.unit != want.unit && !UnitVaries(name))) {
        if (wrong.size() < 20) {
          wrong.push_back(fmt::format("{} of launch {}: {} {} \"{}\" vs the page's {} {} \"{}\"", name, i,
                                      got.number.value_or(-1), got.unit, got.text, want.number.value_or(-1), want.unit,
                                      want.text));
        }
      }
    }
  }
  EXPECT_TRUE(wrong.empty()) << ::testing::PrintToString(wrong);
  EXPECT_EQ(compared, e.stored);
}

INSTANTIATE_TEST_SUITE_P(Devset, NcuRepImport, testing::DevsetReports(), testing::ReportTestName);

}  // namespace
}  // namespace kscope
