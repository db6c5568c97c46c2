// Every report kscope rebuilds must print exactly what `nsys stats --format csv` printed
// for the same export: same rows, order and values, or, where nsys skipped the report for
// data the export lacks, the same SKIPPED sentence. The expected files are nsys's own
// (tests/data/nsys/README.md), for reports read from a stored run and from the export alike.
#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <sstream>

#include "import/import_files.h"
#include "nsys_stats_support.h"
#include "report/nsys_report_catalog.h"
#include "report/nsys_stats.h"
#include "report/nsys_trace.h"
#include "test_support.h"

namespace kscope {
namespace {

using testing::NsysExpectedOutput;
using testing::NsysExportFile;
using testing::ReportCsv;
using testing::SkippedLineFor;

struct Case {
  std::string export_name;
  std::string report;
  size_t threads;  // import reader threads: each table is read in at least 2 slices; 9 gives more
};

// How ctest names a case (instead of the struct's bytes).
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.export_name << " " << c.report << " " << c.threads << " threads";
}

// A trace report of an export, as CSV.
std::string TraceCsv(sql::Db& db, const report::NsysReportSpec& spec) {
  std::ostringstream csv;
  auto status = report::StreamNsysTrace(db, spec, *report::CsvSink(csv));
  return status.ok() ? csv.str() : status.error().Line();
}

// What kscope prints for `spec` given the data it found: the SKIPPED line, or the report.
std::string Output(const report::NsysReportSpec& spec, const report::NsysDataPresent& present, const std::string& file,
                   const std::function<std::string()>& report) {
  if (auto skip = report::NsysSkipReason(spec, present, file)) return "SKIPPED: " + *skip + "\n";
  return report();
}

std::string ExpectedOutput(const Case& c, const std::string& file) {
  const auto expected = NsysExpectedOutput(c.export_name, c.report);
  return expected.skipped ? SkippedLineFor(expected.text, c.export_name, file) : expected.text;
}

class StoredRunFidelity : public ::testing::TestWithParam<Case> {};
class ExportFileFidelity : public ::testing::TestWithParam<Case> {};

// From a stored run: the summaries from its tables, the skips by its event streams, the trace
// reports from the export it was imported from.
TEST_P(StoredRunFidelity, CsvEqualsNsysStats) {
  const Case& c = GetParam();
  const auto* spec = report::FindNsysReport(c.report);
  ASSERT_NE(spec, nullptr);
  auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(store.ok()) << store.error().Line();
  import::ImportOptions options;
  options.threads = c.threads;
  const std::string file = NsysExportFile(c.export_name);
  auto imported = import::ImportFiles(*store, {file}, options);
  ASSERT_TRUE(imported.ok()) << imported.error().Line();
  const int64_t run = imported->front().run_id;
  auto present = report::DataInRun(*store, run);
  ASSERT_TRUE(present.ok()) << present.error().Line();
  auto paths = report::RunExportPaths(*store, run);
  ASSERT_TRUE(paths.ok()) << paths.error().Line();
  ASSERT_EQ(paths->size(), 1U);
  const std::string* path = &paths->front();
  EXPECT_EQ(Output(*spec, *present, *path,
                   [&] {
                     if (spec->kind == report::NsysReportKind::kSummary) return ReportCsv(*store, run, c.report);
                     auto db = sql::Db::Open(*path, sql::OpenMode::kReadOnly);
                     return db.ok() ? TraceCsv(*db, *spec) : db.error().Line();
                   }),
            ExpectedOutput(c, *path));
}

// From the export file: the skips by its tables (no import needed), the trace reports read
// from it, the summaries from an in-memory import.
TEST_P(ExportFileFidelity, CsvEqualsNsysStats) {
  const Case& c = GetParam();
  const auto* spec = report::FindNsysReport(c.report);
  ASSERT_NE(spec, nullptr);
  const std::string file = NsysExportFile(c.export_name);
  auto db = sql::Db::Open(file, sql::OpenMode::kReadOnly);
  ASSERT_TRUE(db.ok()) << db.error().Line();
  auto present = report::DataInExport(*db);
  ASSERT_TRUE(present.ok()) << present.error().Line();
  EXPECT_EQ(Output(*spec, *present, file,
                   [&] {
                     if (spec->kind == report::NsysReportKind::kTrace) return TraceCsv(*db, *spec);
                     auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
                     if (!store.ok()) return store.error().Line();
                     import::ImportOptions options;
                     options.threads = c.threads;
                     options.allow_no_kernels = true;  // as kscope stats FILE imports
                     auto imported = import::ImportFiles(*store, {file}, options);
                     if (!imported.ok()) return imported.error().Line();
                     return ReportCsv(*store, imported->front().run_id, c.report);
                   }),
            ExpectedOutput(c, file));
}

std::vector<Case> Cases(bool stored) {
  std::vector<Case> cases;
  for (const auto& e : testing::NsysExports()) {
    // kscope import takes no export without kernels (nvtx_only has no CUDA at all): no
    // stored run of it (NvtxOnlyExport below).
    if (e == "nvtx_only" && stored) continue;
    for (const auto& r : report::NsysReports()) {
      // The summaries of a stored run come from the import's own work, sliced over threads.
      const bool sliced = stored && r.kind == report::NsysReportKind::kSummary;
      for (size_t threads : sliced ? std::vector<size_t>{2, 9} : std::vector<size_t>{0}) {
        cases.push_back({e, std::string(r.name), threads});
      }
    }
  }
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return c.export_name + "_" + c.report + "_" + std::to_string(c.threads) + "threads";
}

INSTANTIATE_TEST_SUITE_P(NsysExports, StoredRunFidelity, ::testing::ValuesIn(Cases(true)), CaseName);

// The export without CUDA: kscope import refuses it (a run without GPU work), while the
// in-memory import of kscope stats FILE takes it for its NVTX summary (ExportFileFidelity).
TEST(NsysStatsNvtxOnlyExport, ImportRefusesItStatsTakesIt) {
  const std::string file = NsysExportFile("nvtx_only");
  auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(store.ok());
  auto refused = import::ImportFiles(*store, {file}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().Line(),
            "kscope: error: " + file +
                ": nsys export without a CUPTI_ACTIVITY_KIND_KERNEL table (no GPU kernel was recorded); profile with "
                "CUDA tracing (nsys profile --trace=cuda ...) and export the report again");
  import::ImportOptions options;
  options.allow_no_kernels = true;
  auto taken = import::ImportFiles(*store, {file}, options);
  ASSERT_TRUE(taken.ok()) << taken.error().Line();
  EXPECT_EQ(ReportCsv(*store, taken->front().run_id, "nvtx_sum"), NsysExpectedOutput("nvtx_only", "nvtx_sum").text);
}

// The names nsys 2022.3 and earlier gave the reports mean today's reports.
TEST(NsysStatsNames, OlderNamesAreAliases) {
  for (const auto& [old_name, name] :
       std::vector<std::pair<std::string, std::string>>{{"gpukernsum", "cuda_gpu_kern_sum"},
                                                        {"cudaapisum", "cuda_api_sum"},
                                                        {"gpumemtimesum", "cuda_gpu_mem_time_sum"},
                                                        {"gpumemsizesum", "cuda_gpu_mem_size_sum"},
                                                        {"nvtxsum", "nvtx_sum"},
                                                        {"nvtxkernsum", "nvtx_kern_sum"},
                                                        {"gputrace", "cuda_gpu_trace"},
                                                        {"cudaapitrace", "cuda_api_trace"},
                                                        {"nvtxpptrace", "nvtx_pushpop_trace"}}) {
    const auto* spec = report::FindNsysReport(old_name);
    ASSERT_NE(spec, nullptr) << old_name;
    EXPECT_EQ(spec->name, name);
  }
  // nsys 2025.3.1 knows none of these either: it says "Report 'summary' could not be found."
  for (const char* unknown : {"summary", "nvtxppsum", "gpusum", "cuda_gpu_sum", ""}) {
    EXPECT_EQ(report::FindNsysReport(unknown), nullptr) << unknown;
  }
  EXPECT_EQ(report::UnknownNsysReport("summary").Line(),
            "kscope: error: unknown report 'summary'; kscope has: cuda_gpu_kern_sum, cuda_api_sum, "
            "cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, nvtx_sum, nvtx_kern_sum, nvtx_gpu_proj_sum, "
            "cuda_gpu_trace, cuda_api_trace, nvtx_pushpop_trace; and by their older nsys names: gpukernsum "
            "(cuda_gpu_kern_sum), cudaapisum (cuda_api_sum), gpumemtimesum (cuda_gpu_mem_time_sum), gpumemsizesum "
            "(cuda_gpu_mem_size_sum), nvtxsum (nvtx_sum), nvtxkernsum (nvtx_kern_sum), gputrace (cuda_gpu_trace), "
            "cudaapitrace (cuda_api_trace), nvtxpptrace (nvtx_pushpop_trace)");
}

INSTANTIATE_TEST_SUITE_P(NsysExports, ExportFileFidelity, ::testing::ValuesIn(Cases(false)), CaseName);

}  // namespace
}  // namespace kscope
