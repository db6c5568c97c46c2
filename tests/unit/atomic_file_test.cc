// Files written whole or not at all (util/atomic_file.h) and kscope report's three files
// (report/report_files.h): an unwritable folder, a full disk (a file size limit, RLIMIT_FSIZE,
// set in a forked child), a page that cannot be made; the previous file survives each failure,
// no temporary file is left behind, and one failed report file does not stop the others.
#include "util/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <vector>

#include "config/config.h"
#include "import/import_files.h"
#include "in_child.h"
#include "report/report_files.h"
#include "report/report_text.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

using testing::InChild;

std::string Line(const Status& st) { return st.ok() ? "ok" : st.error().Line(); }

// The names in a folder, sorted.
std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kscope_atomic_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all);
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesTheWholeFileUnderItsNameAndNothingElse) {
  const mode_t mask = umask(022);
  const Status st = WriteFileAtomically(dir_ / "out.json", "{\"a\": 1}\n");
  umask(mask);
  EXPECT_EQ(Line(st), "ok");
  EXPECT_EQ(testing::ReadFile(dir_ / "out.json"), "{\"a\": 1}\n");
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.json"});
  struct stat info {};
  ASSERT_EQ(stat((dir_ / "out.json").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

TEST_F(AtomicFileTest, AnUnwritableFolderIsOneLineAndTheFileStaysAsItWas) {
  std::ofstream(dir_ / "out.json") << "previous";
  fs::permissions(dir_, static_cast<fs::perms>(0555));  // r-x for all
  const std::string line =
      InChild([&] { return Line(WriteFileAtomically(dir_ / "out.json", "new")); }, 0, /*as_nobody=*/true);
  EXPECT_EQ(line, "kscope: error: " + (dir_ / "out.json").string() +
                      ": cannot create a file in its folder: Permission denied; check that the folder exists and is "
                      "writable; the previous file, if any, is kept");
  EXPECT_EQ(testing::ReadFile(dir_ / "out.json"), "previous");
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.json"});
}

TEST_F(AtomicFileTest, AMissingFolderIsOneLine) {
  EXPECT_EQ(Line(WriteFileAtomically(dir_ / "no" / "out.json", "new")),
            "kscope: error: " + (dir_ / "no" / "out.json").string() +
                ": cannot create a file in its folder: No such file or directory; check that the folder exists and "
                "is writable; the previous file, if any, is kept");
}

TEST_F(AtomicFileTest, AFullDiskLeavesThePreviousFileAndNoTemporary) {
  std::ofstream(dir_ / "out.csv") << "previous";
  const std::string big(100000, 'x');
  const std::string line =
      InChild([&] { return Line(WriteFileAtomically(dir_ / "out.csv", big)); }, 65536, /*as_nobody=*/false);
  EXPECT_EQ(line, "kscope: error: " + (dir_ / "out.csv").string() +
                      ": cannot write: File too large; free disk space (or raise the file size limit); the previous "
                      "file, if any, is kept");
  EXPECT_EQ(testing::ReadFile(dir_ / "out.csv"), "previous");
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.csv"});
}

TEST_F(AtomicFileTest, AFileLeftUncommittedIsRemoved) {
  {
    Result<AtomicFile> file = AtomicFile::Create(dir_ / "out.txt");
    ASSERT_TRUE(file.ok()) << file.error().Line();
    EXPECT_EQ(Line(file->Write("half")), "ok");
    EXPECT_EQ(Names(dir_).size(), 1u);  // the temporary file
  }
  EXPECT_TRUE(Names(dir_).empty());
}

// kscope report's files, for the report of the devset's tiny_cuda run (made once).
class ReportFilesTest : public AtomicFileTest {
 protected:
  static void SetUpTestSuite() {
    auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    ASSERT_TRUE(store.ok()) << store.error().Line();
    auto imported = import::ImportFiles(*store, {testing::NsysData("tiny_cuda.sqlite")}, {});
    ASSERT_TRUE(imported.ok()) << imported.error().Line();
    auto report = report::BuildRunReport(*store, imported->front().run_id, config::Config{});
    ASSERT_TRUE(report.ok()) << report.error().Line();
    tiny_cuda_ = new report::RunReport(std::move(report).value());
  }
  static void TearDownTestSuite() {
    delete tiny_cuda_;
    tiny_cuda_ = nullptr;
  }
  void SetUp() override {
    AtomicFileTest::SetUp();
    ASSERT_NE(tiny_cuda_, nullptr);
    report_ = *tiny_cuda_;
    json_ = report::ReportJsonText(report_);
    std::ostringstream md;
    report::WriteReportMarkdown(report_, md);
    md_ = md.str();
  }
  // One line per file: "ok" or its error.
  static std::string Outcome(const std::vector<report::ReportFile>& files) {
    std::string text;
    for (const auto& f : files) text += f.path.filename().string() + ": " + Line(f.status) + "\n";
    return text;
  }
  static inline report::RunReport* tiny_cuda_ = nullptr;
  report::RunReport report_;
  std::string json_, md_;
};

TEST_F(ReportFilesTest, AllThreeAreWritten) {
  EXPECT_EQ(Outcome(report::WriteReportFiles(report_, dir_)), "report.json: ok\nreport.md: ok\nreport.html: ok\n");
  EXPECT_EQ(testing::ReadFile(dir_ / "report.json"), json_);
  EXPECT_EQ(testing::ReadFile(dir_ / "report.md"), md_);
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"report.html", "report.json", "report.md"}));
}

TEST_F(ReportFilesTest, AnHtmlPageThatCannotBeMadeLeavesTheOthersWrittenAndThePreviousPage) {
  std::ofstream(dir_ / "report.html") << "previous page";
  const fs::path no_vega = dir_ / "no_vega";
  fs::create_directories(no_vega);
  setenv("KSCOPE_VEGA_DIR", no_vega.c_str(), 1);
  const std::string outcome = Outcome(report::WriteReportFiles(report_, dir_));
  unsetenv("KSCOPE_VEGA_DIR");
  EXPECT_EQ(outcome, "report.json: ok\nreport.md: ok\nreport.html: kscope: error: " + (dir_ / "report.html").string() +
                         ": not written: " + (no_vega / "vega-util.min.js").string() +
                         ": Vega's JavaScript module vega-util is missing or unreadable; KSCOPE_VEGA_DIR points at "
                         "this folder: unset it to use the Vega built into kscope, or point it at a folder with Vega "
                         "5's vega-*.min.js modules\n");
  EXPECT_EQ(testing::ReadFile(dir_ / "report.json"), json_);
  EXPECT_EQ(testing::ReadFile(dir_ / "report.md"), md_);
  EXPECT_EQ(testing::ReadFile(dir_ / "report.html"), "previous page");
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"no_vega", "report.html", "report.json", "report.md"}));
}

TEST_F(ReportFilesTest, ADiskFullForThePageOnlyLeavesTheOthersWrittenAndThePreviousPage) {
  std::ofstream(dir_ / "report.html") << "previous page";
  // Room for report.json and report.md, not for report.html (it holds Vega: several hundred kB).
  const rlim_t limit = std::max(json_.size(), md_.size()) + 4096;
  ASSERT_LT(limit, 300000u);
  const std::string outcome =
      InChild([&] { return Outcome(report::WriteReportFiles(report_, dir_)); }, limit, /*as_nobody=*/false);
  EXPECT_EQ(outcome, "report.json: ok\nreport.md: ok\nreport.html: kscope: error: " + (dir_ / "report.html").string() +
                         ": cannot write: File too large; free disk space (or raise the file size limit); the "
                         "previous file, if any, is kept\n");
  EXPECT_EQ(testing::ReadFile(dir_ / "report.json"), json_);
  EXPECT_EQ(testing::ReadFile(dir_ / "report.md"), md_);
  EXPECT_EQ(testing::ReadFile(dir_ / "report.html"), "previous page");
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"report.html", "report.json", "report.md"}));
}

TEST_F(ReportFilesTest, AnUnwritableFolderFailsEachFileOnItsOwn) {
  fs::permissions(dir_, static_cast<fs::perms>(0555));  // r-x for all
  const std::string outcome =
      InChild([&] { return Outcome(report::WriteReportFiles(report_, dir_)); }, 0, /*as_nobody=*/true);
  std::string expected;
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    expected += std::string(name) + ": kscope: error: " + (dir_ / name).string() +
                ": cannot create a file in its folder: Permission denied; check that the folder exists and is "
                "writable; the previous file, if any, is kept\n";
  }
  EXPECT_EQ(outcome, expected);
  EXPECT_TRUE(Names(dir_).empty());
}

}  // namespace
}  // namespace kscope
