// A run on the command line by its id or as `last` (or -1): the store's newest run, for
// report (and its report.json on stdout), whatif, kernels, import --run, stats, diff, export
// and export --perfetto; a store without runs, and a run id it does not hold, each told in
// one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kscope_binary.h"
#include "store/store.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

class CliRunIds : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kscope_run_ids_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "kscope.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  int Kscope(std::vector<std::string> args, const std::string& log = "last.log") {
    args.insert(args.begin(), {"--db", db_});
    return testing::RunKscope(args, (dir_ / log).string());
  }
  std::string Out(const std::string& log = "last.log") { return testing::ReadFile((dir_ / log).string()); }
  fs::path dir_;
  std::string db_;
};

TEST_F(CliRunIds, LastIsTheNewestRunForEveryVerbThatTakesOne) {
  ASSERT_EQ(Kscope({"import", testing::NsysData("tiny_cuda.sqlite")}), 0) << Out();
  ASSERT_EQ(Kscope({"import", "--force", testing::NsysData("tiny_cuda.sqlite")}), 0) << Out();
  // whatif: `last` and -1 answer as run 2 does, word for word.
  ASSERT_EQ(Kscope({"whatif", "2", "--format", "csv"}, "two.log"), 0) << Out("two.log");
  ASSERT_EQ(Kscope({"whatif", "last", "--format", "csv"}, "last.log"), 0) << Out();
  ASSERT_EQ(Kscope({"whatif", "-1", "--format", "csv"}, "minus.log"), 0) << Out("minus.log");
  EXPECT_EQ(Out("last.log"), Out("two.log"));
  EXPECT_EQ(Out("minus.log"), Out("two.log"));
  ASSERT_EQ(Kscope({"whatif", "last"}), 0);
  EXPECT_EQ(Out().rfind("kscope whatif: run 2, edits: none", 0), 0U) << Out();
  // report: the files of run 2.
  ASSERT_EQ(Kscope({"report", "last", "--quiet", "--out", (dir_ / "r").string()}), 0) << Out();
  EXPECT_NE(testing::ReadFile((dir_ / "r" / "report.json").string()).find("\"id\": 2"), std::string::npos);
  // report --format json: that report.json on stdout, byte for byte, and no files.
  ASSERT_EQ(testing::RunKscopeSplit({"--db", db_, "report", "last", "-f", "json"}, (dir_ / "json.out").string(),
                                    (dir_ / "json.err").string()),
            0);
  EXPECT_EQ(testing::ReadFile((dir_ / "json.out").string()), testing::ReadFile((dir_ / "r" / "report.json").string()));
  EXPECT_EQ(testing::ReadFile((dir_ / "json.err").string()), "");
  // export --perfetto.
  ASSERT_EQ(Kscope({"export", "--perfetto", "last", "-o", (dir_ / "t.json").string()}), 0) << Out();
  EXPECT_NE(Out().find(": run 2 as a Chrome JSON trace"), std::string::npos) << Out();
  // kernels: the run is resolved first, then its lack of ncu data told as run 2's.
  EXPECT_EQ(Kscope({"kernels", "last"}), 1);
  EXPECT_NE(Out().find("run 2: has no ncu results"), std::string::npos) << Out();
  // import --run last: ncu results into run 2, which kernels then lists.
  const std::string ncu = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/tiny_cuda_basic_raw.csv";
  ASSERT_EQ(Kscope({"import", "--run", "last", ncu}), 0) << Out();
  ASSERT_EQ(Kscope({"kernels", "2", "--format", "csv"}, "two.log"), 0) << Out("two.log");
  ASSERT_EQ(Kscope({"kernels", "last", "--format", "csv"}), 0) << Out();
  EXPECT_EQ(Out(), Out("two.log"));
  EXPECT_EQ(Kscope({"kernels", "1"}), 1) << "run 1 has no ncu results";
  // stats, diff and export.
  ASSERT_EQ(Kscope({"stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "2"}, "two.log"), 0);
  ASSERT_EQ(Kscope({"stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "last"}), 0) << Out();
  EXPECT_EQ(Out(), Out("two.log"));
  ASSERT_EQ(Kscope({"diff", "1", "2", "--format", "json"}, "two.log"), 0) << Out("two.log");
  ASSERT_EQ(Kscope({"diff", "1", "last", "--format", "json"}), 0) << Out();
  EXPECT_EQ(Out(), Out("two.log"));
  ASSERT_EQ(Kscope({"export", "last", "--out", (dir_ / "x").string()}), 0) << Out();
  EXPECT_TRUE(fs::is_directory(dir_ / "x" / "2")) << Out();
}

TEST_F(CliRunIds, NoRunsAndAnUnknownRunAreToldInOneLine) {
  ASSERT_EQ(Kscope({"import", testing::NsysData("tiny_cuda.sqlite")}), 0) << Out();
  EXPECT_EQ(Kscope({"whatif", "7"}), 1);
  EXPECT_EQ(Out(), "kscope: error: " + db_ + ": no run 7 in this database; list the runs with: kscope runs\n");
  EXPECT_EQ(Kscope({"report", "7", "--quiet"}), 1);
  EXPECT_EQ(Out(), "kscope: error: " + db_ + ": no run 7 in this database; list the runs with: kscope runs\n");
  // A store with no run yet: nothing is `last`.
  const std::string empty = (dir_ / "empty.db").string();
  ASSERT_TRUE(store::Store::Open(empty, sql::OpenMode::kCreate).ok());
  EXPECT_EQ(testing::RunKscope({"--db", empty, "whatif", "last"}, (dir_ / "e.log").string()), 1);
  EXPECT_EQ(Out("e.log"), "kscope: error: the store has no runs for `last`; import one first: kscope import FILE\n");
}

}  // namespace
}  // namespace kscope
