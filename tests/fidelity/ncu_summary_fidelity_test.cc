// Every value kscope shows for a profiled kernel equals what `ncu --print-summary
// per-kernel` prints for it: the same groups, sections, labels, units, and minimum, maximum
// and average as ncu's text, for each of the devset's reports (imported from the raw page,
// and from the report itself).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "analysis/kernels/ncu_kernel_sections.h"
#include "import/import_files.h"
#include "recorded_runner.h"
#include "report/ncu_numbers.h"
#include "test_support.h"

namespace kscope {
namespace {

using Rows = std::map<std::string, std::string>;  // "group | section | label" -> "unit | min | max | avg"

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// ncu's per-kernel summary text, parsed by the column widths of its dashed rules.
Rows ParseNcuSummary(const std::string& text) {
  Rows rows;
  std::istringstream in(text);
  std::string line, group, section;
  std::vector<size_t> widths;
  int rules = 0;
  const std::regex header(
      R"(^  (\S.*) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), Device \d+, CC [\d.]+, Invocations \d+\s*$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, header)) {
      group = m[1].str() + " (" + m[2].str() + "," + m[3].str() + "," + m[4].str() + ")x(" + m[5].str() + "," +
              m[6].str() + "," + m[7].str() + ")";
      section.clear();
    } else if (line.rfind("    Section: ", 0) == 0) {
      section = line.substr(13);
      rules = 0;
    } else if (!section.empty() && line.rfind("    -", 0) == 0) {
      widths.clear();
      std::istringstream dashes(line.substr(4));
      std::string d;
      while (dashes >> d) widths.push_back(d.size());
      if (++rules == 3) section.clear();
    } else if (!section.empty() && rules == 2 && line.size() > 4) {
      std::vector<std::string> cols;
      size_t pos = 4;
      for (size_t w : widths) {
        cols.push_back(Trim(line.substr(std::min(pos, line.size()), w)));
        pos += w + 1;
      }
      if (cols.size() == 5)
        rows[group + " | " + section + " | " + cols[0]] = cols[1] + " | " + cols[2] + " | " + cols[3] + " | " + cols[4];
    }
  }
  return rows;
}

Rows KscopeRows(const std::string& raw_csv) {
  auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  EXPECT_TRUE(store.ok());
  auto imported = import::ImportFiles(*store, {raw_csv}, {});
  EXPECT_TRUE(imported.ok()) << imported.error().Line();
  if (!imported.ok()) return {};
  auto launches = analysis::LoadNcuLaunches(*store, imported->front().run_id);
  EXPECT_TRUE(launches.ok());
  Rows rows;
  for (const auto& g : analysis::GroupByKernel(*launches)) {
    const auto& k = g.key;
    const std::string group = k.name + " (" + std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," +
                              std::to_string(k.grid[2]) + ")x(" + std::to_string(k.block[0]) + "," +
                              std::to_string(k.block[1]) + "," + std::to_string(k.block[2]) + ")";
    for (const auto& s : g.sections) {
      for (const auto& r : s.rows) {
        const auto t = report::FormatNcuRow(r.unit, r.min, r.max, r.mean);
        rows[group + " | " + std::string(s.title) + " | " + std::string(r.label)] =
            t.unit + " | " + t.min + " | " + t.max + " | " + t.mean;
      }
    }
  }
  return rows;
}

// Values the raw page cannot reproduce: it prints this ratio with two decimals, and the
// mean of the two printed values (31.70, 31.71) is a tie that rounds down, where ncu
// averages the unrounded values and prints 31.71.
const std::map<std::string, std::string> kRawPageRounding = {
    {"nvjet_sm90_tst_64x8_64x16_4x2_h_bz_TNT (8,11,1)x(384,1,1) | Warp State Statistics | Avg. Active Threads Per "
     "Warp",
     " | 31.70 | 31.71 | 31.70"},
};

class NcuSummaryFidelity : public ::testing::TestWithParam<std::string> {};

TEST_P(NcuSummaryFidelity, EveryValueEqualsNcusPerKernelSummary) {
  const std::string dir = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/";
  const Rows expected = ParseNcuSummary(testing::ReadFile(dir + GetParam() + "_summary.txt"));
  const Rows got = KscopeRows(dir + GetParam() + "_raw.csv");
  ASSERT_GT(expected.size(), 80U);  // the parser found the summary's rows
  size_t compared = 0;
  for (const auto& [key, want] : expected) {
    auto it = got.find(key);
    if (it == got.end()) {
      ADD_FAILURE() << "kscope lacks: " << key << " = " << want;
      continue;
    }
    if (auto known = kRawPageRounding.find(key); known != kRawPageRounding.end()) {
      EXPECT_EQ(it->second, known->second) << key;  // documented above
      continue;
    }
    EXPECT_EQ(it->second, want) << key;
    ++compared;
  }
  for (const auto& [key, value] : got) {
    if (!expected.contains(key)) ADD_FAILURE() << "kscope shows what ncu does not: " << key << " = " << value;
  }
  RecordProperty("values_compared", static_cast<int>(compared));
}

// The same from the .ncu-rep itself, at full precision. ncu's summary names a kernel as its
// pages do (shortened demangled names); kscope keeps the report's full name, so the groups
// compared here are those whose names the two spell alike. The value the raw page could not
// reproduce now equals ncu's.
TEST_P(NcuSummaryFidelity, EveryValueFromTheReportEqualsNcusPerKernelSummary) {
  const std::string dir = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/";
  const Rows expected = ParseNcuSummary(testing::ReadFile(dir + GetParam() + "_summary.txt"));
  const auto tmp = std::filesystem::temp_directory_path() / ("kscope_fid_" + std::to_string(getpid()));
  std::filesystem::create_directories(tmp);
  const std::string rep = (tmp / (GetParam() + ".ncu-rep")).string();
  std::ofstream(rep, std::ios::binary) << testing::Unzstd(dir + GetParam() + ".ncu-rep.zst");
  const Rows got = KscopeRows(rep);
  std::filesystem::remove_all(tmp);
  size_t compared = 0, other_names = 0;
  for (const auto& [key, value] : got) {
    auto it = expected.find(key);
    if (it == expected.end()) {
      ++other_names;
      continue;
    }
    EXPECT_EQ(value, it->second) << key;
    ++compared;
  }
  // (values compared, values under a name ncu spells shorter)
  const std::map<std::string, std::pair<size_t, size_t>> kCounts = {{"llama_deep", {324, 81}},
                                                                    {"llama_decode_quick", {288, 1296}},
                                                                    {"tiny_cuda_basic", {47, 47}},
                                                                    {"tiny_cuda_gemm_full", {0, 84}}};
  EXPECT_EQ(std::make_pair(compared, other_names), kCounts.at(GetParam()));
  for (const auto& [key, from_page] : kRawPageRounding) {
    if (got.contains(key)) {
      EXPECT_EQ(got.at(key), expected.at(key)) << key;  // ncu's 31.71, not the page's 31.70
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Devset, NcuSummaryFidelity,
                         ::testing::Values("llama_deep", "llama_decode_quick", "tiny_cuda_basic",
                                           "tiny_cuda_gemm_full"));

}  // namespace
}  // namespace kscope
