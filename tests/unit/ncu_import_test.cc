// ncu import: numbers and units, log lines in captured output, reports read through a
// recorded ncu, the roofline against ncu's own rule text, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "analysis/kernels/ncu_launches.h"
#include "analysis/kernels/roofline.h"
#include "import/import_files.h"
#include "import/ncu/units.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
const std::string kNcu = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/";

TEST(NcuUnits, NumbersAsNcuPrintsThem) {
  using import::ncu::ParseNumber;
  EXPECT_EQ(ParseNumber("90,933"), 90933.0);
  EXPECT_EQ(ParseNumber("1,158,144.00"), 1158144.0);
  EXPECT_EQ(ParseNumber("1.504000"), 1.504);
  EXPECT_EQ(ParseNumber("-0.5"), -0.5);
  EXPECT_FALSE(ParseNumber("no data"));
  EXPECT_FALSE(ParseNumber("nan"));
  EXPECT_FALSE(ParseNumber("PolicySpread"));
  EXPECT_FALSE(ParseNumber("1,00"));
  EXPECT_FALSE(ParseNumber(",100"));
  EXPECT_FALSE(ParseNumber(""));
}

TEST(NcuUnits, PrefixesAreDecimalAndGoToBaseUnits) {
  using import::ncu::NormalizeUnit;
  auto check = [](std::string_view unit, std::string_view base, double factor) {
    const auto u = NormalizeUnit(unit);
    EXPECT_EQ(u.unit, base) << unit;
    EXPECT_DOUBLE_EQ(u.factor, factor) << unit;
  };
  check("Kbyte", "byte", 1e3);
  check("Mbyte", "byte", 1e6);
  check("Gbyte/s", "byte/s", 1e9);
  check("Kbyte/cycle", "byte/cycle", 1e3);
  check("%/Kbyte", "%/byte", 1e-3);
  check("Ghz", "hz", 1e9);
  check("us", "ns", 1e3);
  check("sector/us", "sector/s", 1e6);
  check("sector/ns", "sector/s", 1e9);
  check("cycle", "cycle", 1);
  check("", "", 1);
}

Result<std::vector<analysis::NcuLaunch>> ImportAndLoad(store::Store& s, const std::vector<std::string>& files,
                                                       const import::ImportOptions& options = {}) {
  auto r = import::ImportFiles(s, files, options);
  if (!r.ok()) return r.error();
  return analysis::LoadNcuLaunches(s, r->front().run_id);
}

TEST(NcuImport, RawPageKeepsEveryMetricInBaseUnits) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  auto launches = ImportAndLoad(*s, {kNcu + "tiny_cuda_gemm_full_raw.csv"});
  ASSERT_TRUE(launches.ok()) << launches.error().Line();
  ASSERT_EQ(launches->size(), 1U);
  const auto& l = launches->front();
  EXPECT_EQ(l.key.name, "void tiled_gemm<16>(int, const float *, const float *, float *)");
  EXPECT_EQ(l.key.grid, (std::array<int64_t, 3>{64, 64, 1}));
  EXPECT_EQ(l.metrics.size(), 2215U);  // every non-empty cell but the 11 ID columns (12 cells are empty)
  EXPECT_DOUBLE_EQ(*l.Number("gpu__time_duration.sum"), 364480.0);        // "us 364.480000"
  EXPECT_DOUBLE_EQ(*l.Number("dram__bytes_read.sum"), 8397056.0);         // "Mbyte 8.397056"
  EXPECT_DOUBLE_EQ(*l.Number("dram__bytes.sum.peak_sustained"), 1504.0);  // "Kbyte/cycle 1.504000"
  EXPECT_EQ(l.metrics.at("device__attribute_display_name").text, "NVIDIA H200");
}

TEST(NcuImport, CapturedStdoutWithProfilerLogLines) {
  const fs::path dir = fs::temp_directory_path() / ("kscope_ncu_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string csv = testing::ReadFile(kNcu + "tiny_cuda_basic_raw.csv");
  const size_t second_row = csv.find('\n', csv.find('\n') + 1) + 1;
  const std::string p = (dir / "stdout.csv").string();
  std::ofstream(p) << "==PROF== Connected to process 752 (/tmp/dev/tiny_cuda)\n"
                   << csv.substr(0, second_row) << "==WARNING== Some metrics were not collected\n"
                   << csv.substr(second_row) << "==PROF== Disconnected from process 752\n";
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  auto with_log = ImportAndLoad(*s, {p});
  auto plain = ImportAndLoad(*s, {kNcu + "tiny_cuda_basic_raw.csv"});
  ASSERT_TRUE(with_log.ok()) << with_log.error().Line();
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(with_log->size(), 9U);
  ASSERT_EQ(with_log->size(), plain->size());
  for (size_t i = 0; i < plain->size(); ++i) {
    EXPECT_EQ((*with_log)[i].metrics.size(), (*plain)[i].metrics.size());
    EXPECT_EQ((*with_log)[i].Number("gpu__time_duration.sum"), (*plain)[i].Number("gpu__time_duration.sum"));
  }
  fs::remove_all(dir);
}

// A recorded ncu: the real pages ncu exported from the devset's reports, fed through the
// same importer that runs the real ncu.
class RecordedNcu : public capture::NcuTool {
 public:
  Status ExportPage(const std::string& report, std::string_view page, const std::string& out_path) override {
    const std::string stem = fs::path(report).stem().string();
    fs::copy_file(kNcu + stem + "_" + std::string(page) + ".csv", out_path, fs::copy_options::overwrite_existing);
    pages.push_back(std::string(page));
    return Status::Ok();
  }
  std::vector<std::string> pages;
};

TEST(NcuImport, ReportReadThroughNcuMergesRawAndDetails) {
  const fs::path dir = fs::temp_directory_path() / ("kscope_rep_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string rep = (dir / "tiny_cuda_gemm_full.ncu-rep").string();
  std::ofstream(rep, std::ios::binary) << std::string("NVR\0\2\0\0\0", 8) << "recorded";
  auto ncu = std::make_shared<RecordedNcu>();
  import::ImportOptions options;
  options.ncu = ncu;
  options.via_ncu = true;
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  auto launches = ImportAndLoad(*s, {rep}, options);
  ASSERT_TRUE(launches.ok()) << launches.error().Line();
  EXPECT_EQ(ncu->pages, (std::vector<std::string>{"raw", "details"}));
  ASSERT_EQ(launches->size(), 1U);  // one launch, not one per page
  // The raw page's 6-decimal value wins over the details page's rounded one.
  EXPECT_DOUBLE_EQ(*launches->front().Number("gpu__time_duration.sum"), 364480.0);
  auto rules = s->db().Prepare("SELECT count(*), count(DISTINCT rule) FROM ncu_rule");
  ASSERT_TRUE(rules.ok() && rules->Step());
  EXPECT_EQ(rules->Int(0), 8);
  fs::remove_all(dir);
}

// ncu's SOLFPRoofline rule states the FP32 and FP64 share of peak it computed; kscope's
// roofline must give the same percentages from the same report.
TEST(NcuRoofline, SharesOfPeakEqualNcusOwnRuleText) {
  for (const std::string name : {"tiny_cuda_gemm_full", "llama_deep"}) {
    auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    auto launches = ImportAndLoad(*s, {kNcu + name + "_raw.csv", kNcu + name + "_details.csv"});
    ASSERT_TRUE(launches.ok()) << launches.error().Line();
    auto q = s->db().Prepare("SELECT launch_id, description FROM ncu_rule WHERE rule = 'SOLFPRoofline'");
    ASSERT_TRUE(q.ok());
    int checked = 0;
    const std::regex said(R"(achieved\s+(close to )?(\d+)% of this device's FP32 peak performance and (\d+)%)");
    while (q->Step()) {
      std::smatch m;
      const std::string text = q->Text(1);
      ASSERT_TRUE(std::regex_search(text, m, said)) << text;
      const auto roof = analysis::ComputeRoofline((*launches)[static_cast<size_t>(q->Int(0))]);
      double fp32 = -1, fp64 = -1;
      for (const auto& p : roof.points) {
        if (p.precision == "FP32") fp32 = p.PercentOfPeak();
        if (p.precision == "FP64") fp64 = p.PercentOfPeak();
      }
      if (m[1].matched) {  // "close to 1%": above zero, below one and a half
        EXPECT_GT(fp32, 0) << name << " " << text;
        EXPECT_LT(fp32, 1.5) << name;
      } else {
        EXPECT_EQ(std::lround(fp32), std::stol(m[2].str())) << name << " fp32 " << fp32;
      }
      EXPECT_EQ(std::lround(fp64), std::stol(m[3].str())) << name << " fp64 " << fp64;
      ++checked;
    }
    EXPECT_GT(checked, 0) << name;
  }
}

}  // namespace
}  // namespace kscope
