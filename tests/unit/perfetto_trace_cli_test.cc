// kscope export --perfetto through the built binary: the trace of the devset's tiny CUDA run,
// -o and --out, the one-line errors of a missing file, run or folder and of run ids mixed
// with --perfetto; kscope export RUN --out DIR beside it, as before.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kscope_binary.h"
#include "perfetto_support.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using testing::TraceEvent;

fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("kscope_perfetto_cli_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

class PerfettoTraceCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = TempDir("cli");
    db_ = (dir_ / "kscope.db").string();
    ASSERT_EQ(Kscope({"import", testing::NsysData("tiny_cuda.sqlite")}), 0) << Last();
  }
  static void TearDownTestSuite() { fs::remove_all(dir_.parent_path()); }
  static int Kscope(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_});
    return testing::RunKscope(args, (dir_ / "last.log").string());
  }
  static std::string Last() { return testing::ReadFile((dir_ / "last.log").string()); }
  static inline fs::path dir_;
  static inline std::string db_;
};

TEST_F(PerfettoTraceCli, WritesTheRunAsATrace) {
  const std::string file = (dir_ / "tiny.json").string();
  ASSERT_EQ(Kscope({"export", "--perfetto", "1", "-o", file}), 0) << Last();
  EXPECT_NE(Last().find("wrote " + file + ": run 1 as a Chrome JSON trace"), std::string::npos) << Last();
  EXPECT_NE(Last().find("ui.perfetto.dev"), std::string::npos);
  const testing::ReadTrace t = testing::ParseTrace(file);
  int64_t kernels = 0;
  for (const TraceEvent& e : t.events) kernels += e.ph() == "X" && e.cat() == "kernel" ? 1 : 0;
  EXPECT_EQ(kernels, 9);  // the export's CUPTI_ACTIVITY_KIND_KERNEL rows
  // --out names the file too.
  ASSERT_EQ(Kscope({"export", "--perfetto", "1", "--out", (dir_ / "again.json").string()}), 0) << Last();
  EXPECT_EQ(testing::ReadFile(file), testing::ReadFile((dir_ / "again.json").string()));
}

TEST_F(PerfettoTraceCli, MistakesAreOneLine) {
  auto one_line = [](const std::string& out) { return out.find('\n') == out.size() - 1; };
  EXPECT_EQ(Kscope({"export", "--perfetto", "1"}), 1);
  EXPECT_EQ(
      Last(),
      "kscope: error: kscope export --perfetto: no file to write the trace to; pass -o FILE (e.g. -o run.json)\n");
  EXPECT_EQ(Kscope({"export", "--perfetto", "7", "-o", (dir_ / "x.json").string()}), 1);
  EXPECT_TRUE(one_line(Last()) && Last().find("no run 7") != std::string::npos) << Last();
  EXPECT_EQ(Kscope({"export", "1", "--perfetto", "1", "-o", (dir_ / "x.json").string()}), 1);
  EXPECT_TRUE(one_line(Last()) && Last().starts_with("kscope: error: kscope export --perfetto: ")) << Last();
  EXPECT_EQ(Kscope({"export", "--perfetto", "1", "-o", (dir_ / "no" / "such" / "x.json").string()}), 1);
  EXPECT_TRUE(one_line(Last()) && Last().starts_with("kscope: error: ")) << Last();
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));
  EXPECT_EQ(Kscope({"export"}), 1);
  EXPECT_EQ(Last(),
            "kscope: error: kscope export: no run given; pass run ids (kscope runs), or --perfetto RUN -o FILE\n");
  EXPECT_EQ(Kscope({"export", "1"}), 1);
  EXPECT_EQ(Last(), "kscope: error: kscope export: no folder to export into; pass --out DIR\n");
}

TEST_F(PerfettoTraceCli, RunFoldersStillExport) {
  const fs::path out = dir_ / "folders";
  ASSERT_EQ(Kscope({"export", "1", "--out", out.string()}), 0) << Last();
  EXPECT_TRUE(fs::is_directory(out / "1"));
  ASSERT_EQ(Kscope({"export", "1", "-o", (dir_ / "folders2").string(), "--rows-only"}), 0) << Last();
  EXPECT_TRUE(fs::is_directory(dir_ / "folders2" / "1"));
}

}  // namespace
}  // namespace kscope
