// Every report kscope rebuilds must print exactly what `nsys stats --format csv` printed
// for the same export: same rows, order and values. The expected files are nsys's own.
#include <gtest/gtest.h>

#include <ostream>

#include "import/import_files.h"
#include "report/nsys_stats.h"
#include "test_support.h"

namespace kscope {
namespace {

using testing::NsysData;
using testing::ReadFile;
using testing::ReportCsv;

struct Case {
  std::string export_name;
  std::string report;
  size_t threads;  // import reader threads: each table is read in at least 2 slices; 9 gives more
};

// How ctest names a case (instead of the struct's bytes).
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.export_name << " " << c.report << " " << c.threads << " threads";
}

class NsysStatsFidelity : public ::testing::TestWithParam<Case> {};

TEST_P(NsysStatsFidelity, CsvEqualsNsysStats) {
  const Case& c = GetParam();
  auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(store.ok()) << store.error().Line();
  import::ImportOptions options;
  options.threads = c.threads;
  auto imported = import::ImportFiles(*store, {NsysData(c.export_name + ".sqlite")}, options);
  ASSERT_TRUE(imported.ok()) << imported.error().Line();
  const std::string expected = ReadFile(NsysData("expected/" + c.export_name + "/" + c.report + ".csv"));
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(ReportCsv(*store, imported->front().run_id, c.report), expected);
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const char* e : {"llama", "tiny_cuda"}) {
    for (auto r : report::NsysReportNames()) {
      for (size_t threads : {2, 9}) cases.push_back({e, std::string(r), threads});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(DevsetExports, NsysStatsFidelity, ::testing::ValuesIn(AllCases()), [](const auto& param_info) {
  const Case& c = param_info.param;
  return c.export_name + "_" + c.report + "_" + std::to_string(c.threads) + "threads";
});

}  // namespace
}  // namespace kscope
