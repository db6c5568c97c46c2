// Inputs that would give wrong numbers with exit 0, made at test time from the real devset
// files: a file without what its numbers need is refused with one line and the store is left
// byte for byte as it was; rows with impossible times are skipped, recorded and counted where
// the user sees them (the import's line, kscope runs, the report's notes).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kscope_binary.h"
#include "robustness/bad_input_fixture.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using testing::Edit;
using testing::ReadFile;
using testing::WriteBytes;

const std::string kNcuDir = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/";

// A CSV page without the column `name` (ncu quotes every field, so fields end at '","').
std::string DropColumn(const std::string& csv, const std::string& name) {
  std::string out;
  size_t drop = std::string::npos;
  size_t pos = 0;
  while (pos < csv.size()) {
    const size_t eol = csv.find('\n', pos);
    std::string line = csv.substr(pos, eol - pos);
    pos = eol == std::string::npos ? csv.size() : eol + 1;
    std::vector<std::string> fields;
    for (size_t at = 0;;) {
      const size_t next = line.find("\",\"", at);
      fields.push_back(line.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at));
      if (next == std::string::npos) break;
      at = next + 2;
    }
    for (size_t i = 0; drop == std::string::npos && i < fields.size(); ++i) {
      if (fields[i] == "\"" + name + "\"") drop = i;
    }
    std::string kept;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i != drop) kept += (kept.empty() ? "" : ",") + fields[i];
    }
    out += kept + "\n";
  }
  return out;
}

// Lines of `csv` without those that hold `text`.
std::string DropLines(const std::string& csv, const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < csv.size()) {
    const size_t eol = csv.find('\n', pos);
    const std::string line = csv.substr(pos, eol == std::string::npos ? std::string::npos : eol + 1 - pos);
    pos = eol == std::string::npos ? csv.size() : eol + 1;
    if (line.find(text) == std::string::npos) out += line;
  }
  return out;
}

class WrongNumbers : public testing::BadInput {
 protected:
  // A copy of an ncu page of the devset under `name`, passed through `edit`.
  template <typename Edit>
  std::string NcuPage(const std::string& page, const std::string& name, Edit edit) {
    const std::string p = Path(name);
    WriteBytes(p, edit(ReadFile(kNcuDir + page)));
    return p;
  }

  // kscope ARGS... on the fixture's store; its exit status and output.
  std::pair<int, std::string> Kscope(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_});
    const std::string log = Path("out.log");
    const int rc = testing::RunKscope(args, log);
    return {rc, ReadFile(log)};
  }
};

TEST_F(WrongNumbers, NsysExportWithoutKernelTable) {
  const std::string p = CopyOfTiny("no_kernels.sqlite");
  Edit(p, "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL");
  ExpectRejected(p, "kscope: error: " + p +
                        ": nsys export without a CUPTI_ACTIVITY_KIND_KERNEL table (no GPU kernel was recorded); "
                        "profile with CUDA tracing (nsys profile --trace=cuda ...) and export the report again");
}

TEST_F(WrongNumbers, NsysExportWithEmptyKernelTable) {
  const std::string p = CopyOfTiny("empty_kernels.sqlite");
  Edit(p, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL");
  ExpectRejected(p, "kscope: error: " + p +
                        ": nsys export without any GPU kernel (its CUPTI_ACTIVITY_KIND_KERNEL table is empty); "
                        "profile with CUDA tracing (nsys profile --trace=cuda ...) and export the report again");
}

// Every kernel ends before it starts: nothing sensible is left, and the file is refused.
TEST_F(WrongNumbers, NsysExportWithoutOneUsableKernel) {
  const std::string p = CopyOfTiny("all_kernels_bad.sqlite");
  Edit(p, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 1");
  ExpectRejected(p, "kscope: error: " + p +
                        ": none of the kernels of CUPTI_ACTIVITY_KIND_KERNEL has usable times and a name; profile "
                        "with CUDA tracing (nsys profile --trace=cuda ...) and export the report again");
}

// A CUDA API call that ends before it starts, a kernel start that is text, a kernel that
// ends at INT64_MAX and one after the export's end: each skipped and recorded; the import,
// kscope runs and the report say how many.
TEST_F(WrongNumbers, ImpossibleTimesAreSkippedAndCounted) {
  const std::string p = CopyOfTiny("bad_times.sqlite");
  Edit(p,
       "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = start - 5 WHERE rowid = 1;"
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'abc' WHERE rowid = 2;"
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 9223372036854775807 WHERE rowid = 4;"
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 1300000000, end = 1300000100 WHERE rowid = 5;");
  auto [rc, out] = Kscope({"import", p});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out.substr(0, out.find('\n') + 1),
            "imported " + p + " as run 2: 43 rows, 4 bad rows skipped (see table import_problem)\n");
  {
    auto s = store::Store::Open(db_, sql::OpenMode::kReadOnly);
    ASSERT_TRUE(s.ok()) << s.error().Line();
    EXPECT_EQ(Problems(*s, 2),
              "CUPTI_ACTIVITY_KIND_KERNEL rowid 2 | start is not a whole number of nanoseconds | start=abc\n"
              "CUPTI_ACTIVITY_KIND_KERNEL rowid 4 | outside the export's time span (0 to 1287640156 ns) | "
              "start=487524324 end=9223372036854775807\n"
              "CUPTI_ACTIVITY_KIND_KERNEL rowid 5 | outside the export's time span (0 to 1287640156 ns) | "
              "start=1300000000 end=1300000100\n"
              "CUPTI_ACTIVITY_KIND_RUNTIME rowid 1 | ends before it starts | start=362260054 end=362260049\n");
    EXPECT_EQ(*s->StreamRows(2, "kernel"), 6);
    EXPECT_EQ(*s->StreamRows(2, "api_call"), 31);
    // No negative minimum, no wall time of 9e9 s: only the calls and kernels kept count.
    EXPECT_EQ(testing::ReportCsv(*s, 2, "cuda_gpu_kern_sum"),
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,381787,6,63631.2,63711.0,62431,64703,757.4,\"saxpy(int, float, const float *, float *)\"\n");
  }
  std::tie(rc, out) = Kscope({"runs", "--format", "csv"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(",Kernels,API calls,Bad rows,"), std::string::npos) << out;
  EXPECT_NE(out.find(",6,31,4,"), std::string::npos) << out;
  std::tie(rc, out) = Kscope({"report", "2", "--out", Path("report")});
  ASSERT_EQ(rc, 0) << out;
  const auto json = nlohmann::json::parse(ReadFile(Path("report/report.json")), nullptr, false);
  ASSERT_FALSE(json.is_discarded());
  EXPECT_EQ(json["notes"][0],
            "4 bad rows of the imported files are left out of every number (list them with: kscope query \"SELECT * "
            "FROM import_problem WHERE run_id IN (2, 2)\")");
}

TEST_F(WrongNumbers, NvtxRangeNeverClosedIsNoted) {
  const std::string p = CopyOfTiny("open_range.sqlite");
  Edit(p, "UPDATE NVTX_EVENTS SET end = NULL WHERE text = 'decode'");
  auto [rc, out] = Kscope({"import", p});
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = Kscope({"report", "2", "--out", Path("report")});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("note: 1 NVTX range was never closed ('decode'): it is taken to end at the run's last NVTX "
                     "timestamp, so its time is a guess (0 ms when it opened last)\n"),
            std::string::npos)
      << out;
}

TEST_F(WrongNumbers, NcuRawPageWithoutDuration) {
  const std::string p = NcuPage("tiny_cuda_basic_raw.csv", "no_duration.csv",
                                [](const std::string& csv) { return DropColumn(csv, "gpu__time_duration.sum"); });
  ExpectRejected(p, "kscope: error: " + p +
                        ": ncu raw page without a gpu__time_duration.sum column (every kernel's GPU time would be 0); "
                        "profile with that metric (ncu --section SpeedOfLight, or --metrics "
                        "gpu__time_duration.sum,...) and export the raw page: ncu --import REPORT.ncu-rep --page raw "
                        "--csv > FILE.csv");
}

TEST_F(WrongNumbers, NcuRawPageWithoutGridSize) {
  const std::string p = NcuPage("tiny_cuda_basic_raw.csv", "no_grid.csv",
                                [](const std::string& csv) { return DropColumn(csv, "Grid Size"); });
  ExpectRejected(p, "kscope: error: " + p +
                        ": ncu raw page without a \"Grid Size\" column (every launch would have the shape (0, 0, "
                        "0)); export the page with all its launch columns: ncu --import REPORT.ncu-rep --page raw "
                        "--csv > FILE.csv");
}

TEST_F(WrongNumbers, NcuDetailsPageWithoutBlockSize) {
  const std::string p = NcuPage("tiny_cuda_basic_details.csv", "no_block.csv",
                                [](const std::string& csv) { return DropColumn(csv, "Block Size"); });
  ExpectRejected(p, "kscope: error: " + p +
                        ": ncu details page without a \"Block Size\" column (every launch would have the shape (0, "
                        "0, 0)); export the page with all its launch columns: ncu --import REPORT.ncu-rep --page "
                        "details --csv > FILE.csv");
}

TEST_F(WrongNumbers, NcuDetailsPageWithoutDuration) {
  const std::string p = NcuPage("tiny_cuda_basic_details.csv", "no_duration_details.csv",
                                [](const std::string& csv) { return DropLines(csv, "\"Duration\""); });
  ExpectRejected(p, "kscope: error: " + p +
                        ": ncu details page without a \"Duration\" metric of the GPU Speed Of Light Throughput "
                        "section (every kernel's GPU time would be 0); profile with that section (ncu --section "
                        "SpeedOfLight) or import the raw page: ncu --import REPORT.ncu-rep --page raw --csv > "
                        "FILE.csv");
}

// The Llama model's ncu page added to the tiny_cuda run: none of its launches is one of the
// run's kernels. Refused unless forced; tiny_cuda's own page joins.
TEST_F(WrongNumbers, NcuPageOfAnotherProgram) {
  const std::string other = kNcuDir + "llama_decode_quick_raw.csv";
  import::ImportOptions into_run_1;
  into_run_1.into_run = 1;
  into_run_1.refuse_unrelated_ncu = true;
  ExpectRejected(std::vector<std::string>{other},
                 "kscope: error: " + other +
                     ": none of its 80 profiled launches matches a kernel of run 1 (kernel name, grid and block): it "
                     "comes from another program or run; import it as a run of its own (kscope import " +
                     other + "), or add it to run 1 anyway with --force",
                 into_run_1);
  auto s = store::Store::Open(db_, sql::OpenMode::kReadWrite);
  ASSERT_TRUE(s.ok()) << s.error().Line();
  auto own = import::ImportFiles(*s, {kNcuDir + "tiny_cuda_basic_raw.csv"}, into_run_1);
  ASSERT_TRUE(own.ok()) << own.error().Line();
  into_run_1.refuse_unrelated_ncu = false;  // --force
  auto forced = import::ImportFiles(*s, {other}, into_run_1);
  ASSERT_TRUE(forced.ok()) << forced.error().Line();
}

TEST_F(WrongNumbers, EmptyNcuCsv) {
  const std::string p = Path("raw.csv");
  WriteBytes(p, "");
  ExpectRejected(p,
                 "kscope: error: " + p +
                     ": an empty ncu CSV page (0 bytes; a page has a header row at least); export the page again: ncu "
                     "--import REPORT.ncu-rep --page raw --csv > FILE.csv");
}

// A byte-order mark before the header, as some editors write one: the page imports as it
// would without it.
TEST_F(WrongNumbers, CsvWithByteOrderMark) {
  const std::string p =
      NcuPage("tiny_cuda_basic_raw.csv", "bom.csv", [](const std::string& csv) { return "\xEF\xBB\xBF" + csv; });
  auto s = store::Store::Open(db_, sql::OpenMode::kReadWrite);
  ASSERT_TRUE(s.ok()) << s.error().Line();
  auto out = import::ImportFiles(*s, {p}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  ASSERT_EQ(out->size(), 1U);
  EXPECT_EQ(out->front().rows_read, 9);
  EXPECT_EQ(out->front().rows_skipped, 0);
}

}  // namespace
}  // namespace kscope
