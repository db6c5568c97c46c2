// `kscope stats` as a user runs it, against what `nsys stats` printed for the same export:
// standard output byte for byte, the SKIPPED sentence alone on standard error and exit 0 for
// a report nsys skips, from the export file and from the stored run alike; the older report
// names; one line for a name kscope does not know.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <ostream>

#include "import/import_files.h"
#include "kscope_binary.h"
#include "nsys_stats_support.h"
#include "report/nsys_report_catalog.h"

namespace kscope {
namespace {

using testing::NsysExpectedOutput;
using testing::NsysExportFile;
using testing::ReadFile;
using testing::SkippedLineFor;

struct Printed {
  int exit_code;
  std::string out, err;
};

std::filesystem::path WorkDir() {
  static const auto dir = std::filesystem::temp_directory_path() / ("kscope_stats_cli_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

Printed Stats(std::vector<std::string> args) {
  const std::string out = (WorkDir() / "out").string(), err = (WorkDir() / "err").string();
  const int rc = testing::RunKscopeSplit(std::move(args), out, err);
  return {rc, ReadFile(out), ReadFile(err)};
}

// A database holding one run per importable export (the export without kernels is not),
// made once per process.
struct StoredRuns {
  std::string db;
  std::map<std::string, int64_t> runs;
};

const StoredRuns& Stored() {
  static const StoredRuns stored = [] {
    StoredRuns s{(WorkDir() / "runs.db").string(), {}};
    auto store = store::Store::Open(s.db, sql::OpenMode::kCreate);
    if (!store.ok()) return s;
    for (const auto& e : testing::NsysExports()) {
      auto imported = import::ImportFiles(*store, {NsysExportFile(e)}, {});
      if (imported.ok()) s.runs[e] = imported->front().run_id;
    }
    return s;
  }();
  return stored;
}

// One call per export, source and format, asking for every report (one process start each:
// the reports' order is kept on both streams).
struct Case {
  std::string export_name, format;
  bool stored;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.export_name << " " << c.format << (c.stored ? " stored run" : " file");
}

class NsysStatsCli : public ::testing::TestWithParam<Case> {};

TEST_P(NsysStatsCli, PrintsWhatNsysPrinted) {
  const Case& c = GetParam();
  const std::string file = NsysExportFile(c.export_name);
  std::vector<std::string> args = {"stats", "--format", c.format};
  std::string out, err;
  for (const auto& r : report::NsysReports()) {
    const auto expected = NsysExpectedOutput(c.export_name, std::string(r.name));
    // A skipped report gives the same in every format; the others are compared as CSV.
    if (!expected.skipped && c.format != "csv") continue;
    args.insert(args.end(), {"--report", std::string(r.name)});
    (expected.skipped ? err : out) +=
        expected.skipped ? SkippedLineFor(expected.text, c.export_name, file) : expected.text;
  }
  if (c.stored) {
    const StoredRuns& s = Stored();
    ASSERT_TRUE(s.runs.contains(c.export_name));
    args.insert(args.begin(), {"--db", s.db});
    args.push_back(std::to_string(s.runs.at(c.export_name)));
  } else {
    args.push_back(file);
  }
  const Printed p = Stats(args);
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.err, err);
  EXPECT_EQ(p.out, out);
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const auto& e : testing::NsysExports()) {
    for (bool stored : {false, true}) {
      if (e == "nvtx_only" && stored) continue;  // kscope import refuses it: no kernel table
      bool skips = false;
      for (const auto& r : report::NsysReports()) skips |= NsysExpectedOutput(e, std::string(r.name)).skipped;
      for (const char* format : {"csv", "json", "table"}) {
        if (skips || std::string(format) == "csv") cases.push_back({e, format, stored});
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(NsysExports, NsysStatsCli, ::testing::ValuesIn(Cases()), [](const auto& param_info) {
  const Case& c = param_info.param;
  return c.export_name + "_" + c.format + (c.stored ? "_run" : "_file");
});

TEST(NsysStatsCliNames, OlderNamesPrintTodaysReports) {
  std::vector<std::string> args = {"stats", "--format", "csv"};
  std::string out;
  for (const auto& r : report::NsysReports()) {
    if (r.old_name.empty()) continue;
    args.insert(args.end(), {"--report", std::string(r.old_name)});
    out += NsysExpectedOutput("tiny_cuda", std::string(r.name)).text;
  }
  args.push_back(NsysExportFile("tiny_cuda"));
  const Printed p = Stats(args);
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out, out);
}

// nsys 2025.3.1 answers `--report summary` with "ERROR: Report 'summary' could not be
// found." (and exit 0); kscope with one line listing its reports, exit 1.
TEST(NsysStatsCliNames, UnknownNameGetsOneLine) {
  for (const char* name : {"summary", "nvtxppsum", "no_such_report"}) {
    const Printed p = Stats({"stats", "--report", name, "--format", "csv", NsysExportFile("tiny_cuda")});
    EXPECT_EQ(p.exit_code, 1) << name;
    EXPECT_EQ(p.out, "");
    EXPECT_EQ(p.err, report::UnknownNsysReport(name).Line() + "\n");
  }
}

// Several reports in one call: each skipped one's line on stderr, the others on stdout.
TEST(NsysStatsCliNames, SkippedAndPrintedReportsTogether) {
  const std::string file = NsysExportFile("kernels_only");
  const Printed p =
      Stats({"stats", "-r", "nvtx_sum", "-r", "cuda_gpu_kern_sum", "-r", "cuda_gpu_mem_time_sum", "-f", "csv", file});
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.out, NsysExpectedOutput("kernels_only", "cuda_gpu_kern_sum").text);
  EXPECT_EQ(p.err,
            SkippedLineFor(NsysExpectedOutput("kernels_only", "nvtx_sum").text, "kernels_only", file) +
                SkippedLineFor(NsysExpectedOutput("kernels_only", "cuda_gpu_mem_time_sum").text, "kernels_only", file));
}

// Report lists as nsys takes them: comma-separated, a blank item repeating the one before;
// no --report at all, nsys's default set (nvtx_sum, ..., of those kscope has).
TEST(NsysStatsCliNames, CommaListsAndTheDefaultSet) {
  const std::string file = NsysExportFile("kernels_only");
  auto expected = [&](const char* report) { return NsysExpectedOutput("kernels_only", report).text; };
  auto skipped = [&](const char* report) { return SkippedLineFor(expected(report), "kernels_only", file); };
  const Printed listed = Stats({"stats", "-r", "cuda_gpu_kern_sum,,nvtx_sum", "-f", "csv", file});
  EXPECT_EQ(listed.exit_code, 0);
  EXPECT_EQ(listed.out, expected("cuda_gpu_kern_sum") + expected("cuda_gpu_kern_sum"));
  EXPECT_EQ(listed.err, skipped("nvtx_sum"));
  const Printed defaults = Stats({"stats", "-f", "csv", file});
  EXPECT_EQ(defaults.exit_code, 0);
  EXPECT_EQ(defaults.out, expected("cuda_api_sum") + expected("cuda_gpu_kern_sum"));
  EXPECT_EQ(defaults.err, skipped("nvtx_sum") + skipped("cuda_gpu_mem_time_sum") + skipped("cuda_gpu_mem_size_sum"));
  const Printed leading = Stats({"stats", "-r", ",nvtx_sum", "-f", "csv", file});
  EXPECT_EQ(leading.exit_code, 1);
  EXPECT_EQ(leading.err, report::UnknownNsysReport("").Line() + "\n");
}

// The stored run's trace reports read its export: gone, they say so in one line.
TEST(NsysStatsCliNames, TraceOfARunWhoseExportIsGone) {
  const auto copy = WorkDir() / "moved.sqlite";
  std::filesystem::copy_file(NsysExportFile("kernels_only"), copy, std::filesystem::copy_options::overwrite_existing);
  const std::string db = (WorkDir() / "moved.db").string();
  std::filesystem::remove(db);
  {
    auto store = store::Store::Open(db, sql::OpenMode::kCreate);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(import::ImportFiles(*store, {copy.string()}, {}).ok());
  }
  std::filesystem::remove(copy);
  const Printed p = Stats({"--db", db, "stats", "--report", "cuda_gpu_trace", "--format", "csv", "1"});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.out, "");
  EXPECT_EQ(p.err, "kscope: error: " + copy.string() +
                       ": run 1's nsys export is not there; the trace reports read every event from the export; pass "
                       "the export itself: kscope stats --report R FILE.sqlite\n");
  // The summaries come from the store.
  const Printed sum = Stats({"--db", db, "stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "1"});
  EXPECT_EQ(sum.out, NsysExpectedOutput("kernels_only", "cuda_gpu_kern_sum").text);
}

// A run of two exports: its summaries cover both, but a trace lists the events of one export.
TEST(NsysStatsCliNames, TraceOfARunOfTwoExports) {
  const std::string db = (WorkDir() / "two.db").string();
  std::filesystem::remove(db);
  {
    auto store = store::Store::Open(db, sql::OpenMode::kCreate);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(import::ImportFiles(*store, {NsysExportFile("kernels_only"), NsysExportFile("cuda_only")}, {}).ok());
  }
  const Printed p = Stats({"--db", db, "stats", "--report", "cuda_api_trace", "--format", "csv", "1"});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.out, "");
  EXPECT_EQ(p.err,
            "kscope: error: run 1 holds 2 nsys exports; a trace report lists the events of one; pass the export "
            "itself: kscope stats --report R FILE.sqlite\n");
}

}  // namespace
}  // namespace kscope
