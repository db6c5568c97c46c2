// The report writers escape what they must, and what they write parses back to the same
// values (the CSV is compared byte for byte with nsys's elsewhere).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "import/import_files.h"
#include "report/nsys_numbers.h"
#include "report/nsys_stats.h"
#include "report/table.h"
#include "test_support.h"

namespace kscope::report {
namespace {

Table Awkward() {
  const std::string awkward = "void k<(int)1, \"q\">(a, b)\n&<>";
  return Table{"t",
               {"Count", "Avg", "Name"},
               {{Cell{int64_t{3}}, Cell{Round1(2.25)}, Cell{awkward}}, {Cell{}, Cell{Round1(-0.01)}, Cell{"plain"}}}};
}

TEST(TableWriters, CsvQuotesOnlyWhatNeedsIt) {
  std::ostringstream out;
  WriteCsv(Awkward(), out);
  // The newline inside the name is shown as \n (control characters are escaped in text
  // outputs), so every row stays one line.
  EXPECT_EQ(out.str(), "Count,Avg,Name\n3,2.3,\"void k<(int)1, \"\"q\"\">(a, b)\\n&<>\"\n,0.0,plain\n");
}

TEST(TableWriters, JsonParsesBackWithTypedValues) {
  std::ostringstream out;
  WriteJson(Awkward(), out);
  const auto doc = nlohmann::json::parse(out.str());
  ASSERT_EQ(doc["rows"].size(), 2U);
  EXPECT_EQ(doc["rows"][0]["Count"], 3);
  EXPECT_DOUBLE_EQ(doc["rows"][0]["Avg"].get<double>(), 2.3);
  EXPECT_EQ(doc["rows"][0]["Name"], "void k<(int)1, \"q\">(a, b)\n&<>");
  EXPECT_TRUE(doc["rows"][1]["Count"].is_null());
}

TEST(TableWriters, JsonOfARealReportCarriesTheCsvValues) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto run = import::ImportFiles(*s, {kscope::testing::NsysData("llama.sqlite")}, {});
  ASSERT_TRUE(run.ok());
  auto t = BuildNsysReport(*s, run->front().run_id, "cuda_gpu_kern_sum");
  ASSERT_TRUE(t.ok());
  std::ostringstream out;
  WriteJson(*t, out);
  const auto doc = nlohmann::json::parse(out.str());
  ASSERT_EQ(doc["rows"].size(), t->rows.size());
  // The first row as nsys prints it: 13.0,1128460,500,2256.9,2048.0,1568,3296,502.2,<name>
  const auto& first = doc["rows"][0];
  EXPECT_DOUBLE_EQ(first["Time (%)"].get<double>(), 13.0);
  EXPECT_EQ(first["Total Time (ns)"], 1128460);
  EXPECT_EQ(first["Instances"], 500);
  EXPECT_DOUBLE_EQ(first["Avg (ns)"].get<double>(), 2256.9);
  EXPECT_DOUBLE_EQ(first["StdDev (ns)"].get<double>(), 502.2);
  EXPECT_EQ(first["Name"].get<std::string>().rfind("void at::native::elementwise_kernel<(int)128, (int)4,", 0), 0U);
}

}  // namespace
}  // namespace kscope::report
