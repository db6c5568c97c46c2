// The stall evidence kscope shows for a profiled kernel (report.json, report.md, kscope
// kernel) equals ncu's own: on the devset's two reports recorded with WarpStateStats
// (tests/data/ncu/llama_deep and tiny_cuda_gemm_full), imported natively from the .ncu-rep
// with their nsys exports, every reason's value is the value ncu's raw page prints for the
// same launch, every reason the page has is shown, and the shares add up to the whole.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analysis/names/kernel_names.h"
#include "config/config.h"
#include "import/import_files.h"
#include "import/ncu/csv_records.h"
#include "recorded_runner.h"
#include "report/kernel_reports.h"
#include "report/report_text.h"
#include "report/run_report.h"
#include "test_support.h"

namespace kscope {
namespace {

const std::string kNcu = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/";
constexpr std::string_view kPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kSuffix = "_per_issue_active.ratio";

struct Case {
  std::string nsys, ncu;
};

// One launch of ncu's raw page: its kernel's match key and its stall reasons' cells.
struct PageLaunch {
  std::string key;
  std::map<std::string, std::string> stalls;  // reason -> the cell as ncu printed it
};

std::vector<PageLaunch> ReadPage(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  auto read = import::ncu::ReadCsvRecords(path, [&](const import::ncu::CsvRecord& r) {
    rows.push_back(r.fields);
    return Status::Ok();
  });
  EXPECT_TRUE(read.ok());
  std::vector<PageLaunch> out;
  for (size_t i = 2; i < rows.size(); ++i) {
    PageLaunch l;
    for (size_t c = 0; c < rows[0].size(); ++c) {
      const std::string& h = rows[0][c];
      if (h == "Kernel Name") l.key = analysis::KernelMatchKey(rows[i][c]);
      if (!h.starts_with(kPrefix) || !h.ends_with(kSuffix)) continue;
      const std::string reason = h.substr(kPrefix.size(), h.size() - kPrefix.size() - kSuffix.size());
      if (reason.ends_with("_not_issued") || reason == "selected") continue;
      l.stalls[reason] = rows[i][c];
    }
    out.push_back(std::move(l));
  }
  return out;
}

// Equal to the printed cell to the digits ncu printed.
bool AsPrinted(double value, const std::string& cell) {
  const auto dot = cell.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(cell.size() - dot - 1);
  return std::fabs(value - std::stod(cell)) <= 0.5 * std::pow(10.0, -decimals) + 1e-12;
}

bool SameBreakdown(const std::vector<analysis::Stall>& stalls, const PageLaunch& l) {
  if (stalls.size() != l.stalls.size()) return false;
  for (const auto& s : stalls) {
    auto it = l.stalls.find(s.reason);
    if (it == l.stalls.end() || !AsPrinted(s.value, it->second)) return false;
  }
  return true;
}

class StallEvidence : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const std::string rep = (std::filesystem::temp_directory_path() /
                             ("kscope_stalls_" + std::to_string(getpid()) + "_" + GetParam().ncu + ".ncu-rep"))
                                .string();
    std::ofstream(rep, std::ios::binary) << testing::Unzstd(kNcu + GetParam().ncu + ".ncu-rep.zst");
    auto out = import::ImportFiles(store_, {testing::NsysData(GetParam().nsys), rep}, {});
    ASSERT_TRUE(out.ok()) << out.error().Line();
    run_ = out->front().run_id;
    page_ = ReadPage(kNcu + GetParam().ncu + "_raw.csv");
  }
  store::Store store_ = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  int64_t run_ = 0;
  std::vector<PageLaunch> page_;
};

TEST_P(StallEvidence, EveryProfiledKernelsBreakdownIsNcusForOneOfItsLaunches) {
  auto r = report::BuildRunReport(store_, run_, config::Config{});
  ASSERT_TRUE(r.ok()) << r.error().Line();
  int checked = 0;
  for (const auto& k : r->profiled) {
    const auto& v = k.verdict;
    ASSERT_FALSE(v.stalls.empty()) << k.name;
    EXPECT_GT(v.stalls.size(), 3u) << "the whole breakdown, not only the top three";
    EXPECT_EQ(v.stall_unit, "cycles/issue");
    double value_sum = 0, share_sum = 0;
    for (size_t i = 0; i < v.stalls.size(); ++i) {
      value_sum += v.stalls[i].value;
      share_sum += v.stalls[i].share;
      if (i > 0) {
        EXPECT_GE(v.stalls[i - 1].value, v.stalls[i].value) << "largest first";
      }
    }
    EXPECT_NEAR(share_sum, 100, 1e-9);
    ASSERT_TRUE(v.stalls_total);
    EXPECT_NEAR(value_sum, *v.stalls_total, 1e-9);
    const std::string key = analysis::KernelMatchKey(k.name);
    bool found = false;
    for (const auto& l : page_) found = found || (l.key == key && SameBreakdown(v.stalls, l));
    EXPECT_TRUE(found) << k.name << ": no launch of ncu's raw page has this breakdown";
    ++checked;
  }
  // Every launch group ncu profiled is a profiled kernel of the report.
  std::set<std::string> keys;
  for (const auto& l : page_) keys.insert(l.key);
  EXPECT_EQ(static_cast<size_t>(checked), keys.size());
}

TEST_P(StallEvidence, ReportMdShowsEveryReasonOfEveryProfiledKernel) {
  auto r = report::BuildRunReport(store_, run_, config::Config{});
  ASSERT_TRUE(r.ok());
  std::ostringstream md;
  report::WriteReportMarkdown(*r, md);
  ASSERT_FALSE(r->profiled.empty());
  for (const auto& k : r->profiled) {
    EXPECT_NE(md.str().find("### Stalls of " + k.short_name + "\n"), std::string::npos) << k.short_name;
    for (const auto& s : k.verdict.stalls) {
      EXPECT_NE(md.str().find(fmt::format("| {} | {:.2f} | {:.1f}% |", s.reason, s.value, s.share)), std::string::npos)
          << s.reason;
    }
    for (const auto& m : k.verdict.rests_on) EXPECT_NE(md.str().find(m), std::string::npos) << m;
  }
}

TEST_P(StallEvidence, KscopeKernelListsEveryReasonNcuMeasured) {
  auto tables = report::KernelDetailTables(store_, run_, "0", {});
  ASSERT_TRUE(tables.ok()) << tables.error().Line();
  size_t stall_rows = 0;
  for (const auto& row : tables->front().rows) {
    if (report::CellText(row[0]).starts_with("Stall: ")) ++stall_rows;
  }
  ASSERT_FALSE(page_.empty());
  EXPECT_EQ(stall_rows, page_.front().stalls.size());
}

INSTANTIATE_TEST_SUITE_P(Devset, StallEvidence,
                         ::testing::Values(Case{"llama.sqlite", "llama_deep"},
                                           Case{"tiny_cuda.sqlite", "tiny_cuda_gemm_full"}),
                         [](const ::testing::TestParamInfo<Case>& p) { return p.param.ncu; });

}  // namespace
}  // namespace kscope
