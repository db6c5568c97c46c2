// The native .ncu-rep reader's test cases: the devset's and the zoo's reports with ncu's own
// raw page of each, unpacked once per process, and what each holds (ncu_rep_test.cc reads the
// reports against their pages; ncu_rep_import_test.cc imports both and compares the stores).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "import/ncu/csv_records.h"
#include "recorded_runner.h"
#include "test_support.h"

namespace kscope::testing {

// A report (and its raw page) by name: a devset one from tests/data/ncu/<name>.ncu-rep.zst,
// or "zoo/<model>" for tests/data/zoo/<model>/default_profile.ncu-rep.zst, unpacked once per
// process.
inline std::string Unpacked(const std::string& zst, const std::string& as) {
  static std::map<std::string, std::string> unpacked;
  if (auto it = unpacked.find(zst); it != unpacked.end()) return it->second;
  const auto dir = std::filesystem::temp_directory_path() / ("kscope_rep_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string file = as;
  std::replace(file.begin(), file.end(), '/', '_');
  const std::string path = (dir / file).string();
  std::ofstream(path, std::ios::binary) << testing::Unzstd(zst);
  return unpacked[zst] = path;
}
inline bool IsZoo(const std::string& name) { return name.rfind("zoo/", 0) == 0; }
inline std::string NcuDataDir() { return std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/"; }
inline std::string Report(const std::string& name) {
  if (IsZoo(name)) {
    return Unpacked(std::string(KSCOPE_TEST_DATA_DIR) + "/" + name + "/default_profile.ncu-rep.zst", name + ".ncu-rep");
  }
  return Unpacked(NcuDataDir() + name + ".ncu-rep.zst", name + ".ncu-rep");
}
inline std::string RawPage(const std::string& name) {
  if (IsZoo(name)) {
    return Unpacked(std::string(KSCOPE_TEST_DATA_DIR) + "/" + name + "/default_profile_raw.csv.zst", name + "_raw.csv");
  }
  return NcuDataDir() + name + "_raw.csv";
}

// The rows of a CSV page, as ncu's pages are read.
inline std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  auto read = import::ncu::ReadCsvRecords(path, [&](const import::ncu::CsvRecord& r) {
    rows.push_back(r.fields);
    return Status::Ok();
  });
  EXPECT_TRUE(read.ok()) << read.error().Line();
  return rows;
}

// Metrics whose unit ncu prints differently from one devset report to another (inst or
// byte; sector or byte): the unit table holds one of them.
inline bool UnitVaries(std::string_view metric) {
  return metric == "sass__inst_executed_register_spilling_mem_local" ||
         metric == "sass__inst_executed_register_spilling_mem_shared" ||
         metric == "derived__memory_l2_theoretical_sectors_global_excessive";
}

// One report and what it holds.
struct Expected {
  std::string name;
  size_t launches, metric_columns;
  size_t cells;    // cells of the raw page compared, identity columns and units row included
  size_t renamed;  // launches whose page name is shortened from the full demangled name
  size_t stored;   // metric values the page import stores, compared with the native import
  size_t ties;     // cells of an exact tie that ncu rounded down where printf rounds to even
};

// The reports both suites run on.
inline auto DevsetReports() {
  return ::testing::Values(
      Expected{"tiny_cuda_basic", 9, 555, 5643, 1, 4977, 0}, Expected{"tiny_cuda_gemm_full", 1, 2227, 4444, 1, 2214, 0},
      Expected{"llama_deep", 6, 1869, 13139, 1, 11202, 0}, Expected{"llama_decode_quick", 80, 556, 46066, 66, 44320, 1},
      Expected{"zoo/gpt2_infer", 22, 732, 17066, 15, 16060, 3},
      Expected{"zoo/gpt2_compile_train", 14, 732, 11125, 1, 10220, 0});
}

// A test's name for a report: its name with '/' as '_'.
inline std::string ReportTestName(const ::testing::TestParamInfo<Expected>& p) {
  std::string n = p.param.name;
  std::replace(n.begin(), n.end(), '/', '_');
  return n;
}

}  // namespace kscope::testing
