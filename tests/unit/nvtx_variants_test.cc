// NVTX table variants and range styles of other nsys versions, made from the real tiny_cuda
// export: its NVTX table renamed to NVTX_EVENTS_V2, and its push/pop ranges turned into
// start/end ranges. The reports must read the same, but for the style.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "analysis/stages/stages.h"
#include "import/import_files.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using testing::NsysData;
using testing::ReadFile;

// A copy of tiny_cuda.sqlite changed by `sql`.
std::string ModifiedTiny(const std::string& name, const std::string& sql) {
  const fs::path p = fs::temp_directory_path() / ("kscope_nvtx_" + name + "_" + std::to_string(getpid()) + ".sqlite");
  fs::copy_file(NsysData("tiny_cuda.sqlite"), p, fs::copy_options::overwrite_existing);
  fs::permissions(p, fs::perms::owner_write, fs::perm_options::add);
  auto db = sql::Db::Open(p.string(), sql::OpenMode::kReadWrite);
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(db->Exec(sql).ok()) << sql;
  return p.string();
}

std::string ReportCsv(const std::string& file, const std::string& report) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  auto out = import::ImportFiles(*s, {file}, {});
  if (!out.ok()) return out.error().Line();
  return testing::ReportCsv(*s, out->front().run_id, report);
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

TEST(NvtxVariants, VersionedNvtxTableIsRead) {
  const std::string file = ModifiedTiny("v2", "ALTER TABLE NVTX_EVENTS RENAME TO NVTX_EVENTS_V2");
  for (const char* r : {"nvtx_sum", "nvtx_kern_sum", "nvtx_gpu_proj_sum"}) {
    EXPECT_EQ(ReportCsv(file, r), ReadFile(NsysData(std::string("expected/tiny_cuda/") + r + ".csv"))) << r;
  }
  fs::remove(file);
}

TEST(NvtxVariants, StartEndRangesProjectLikePushPopOnesWithTheirStyle) {
  // 59 NvtxPushPopRange -> 60 NvtxStartEndRange, closed on the thread that opened them.
  const std::string file = ModifiedTiny("startend", "UPDATE NVTX_EVENTS SET eventType = 60 WHERE eventType = 59");
  for (const char* r : {"nvtx_sum", "nvtx_kern_sum", "nvtx_gpu_proj_sum"}) {
    const std::string expected =
        Replace(ReadFile(NsysData(std::string("expected/tiny_cuda/") + r + ".csv")), "PushPop", "StartEnd");
    EXPECT_EQ(ReportCsv(file, r), expected) << r;
  }
  fs::remove(file);
}

TEST(NvtxVariants, RangesClosedOnAnotherThreadAreLeftOutOfTheGpuProjection) {
  // As nsys does: such a range still counts in nvtx_sum, but not in the GPU projection.
  const std::string file = ModifiedTiny("crossthread",
                                        "UPDATE NVTX_EVENTS SET eventType = 60, endGlobalTid = globalTid + 1 "
                                        "WHERE eventType = 59 AND text = 'decode'");
  const std::string proj = ReportCsv(file, "nvtx_gpu_proj_sum");
  EXPECT_NE(proj.find(":prefill,PushPop,473017,164206,1,"), std::string::npos) << proj;
  EXPECT_EQ(proj.find(":decode"), std::string::npos) << proj;
  EXPECT_NE(ReportCsv(file, "nvtx_sum").find("StartEnd,:decode"), std::string::npos);
  fs::remove(file);
}

// A push/pop range around both of tiny_cuda's ranges makes a tree of stages: 'step' at the
// root, prefill and decode inside it.
TEST(NvtxVariants, NestedRangesMakeATreeOfStages) {
  const std::string file =
      ModifiedTiny("nested",
                   "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) "
                   "SELECT min(start) - 1000, max(end) + 1000, 59, 'step', globalTid, 0 FROM NVTX_EVENTS");
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  auto out = import::ImportFiles(*s, {file}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  auto stages = analysis::ComputeStages(*s, out->front().run_id);
  ASSERT_TRUE(stages.ok());
  std::map<std::string, std::pair<std::string, int>> tree;  // stage -> (parent, depth)
  for (const auto& st : *stages) {
    tree[st.name] = {st.parent < 0 ? "" : (*stages)[static_cast<size_t>(st.parent)].name, st.depth};
  }
  const std::map<std::string, std::pair<std::string, int>> expected = {
      {":step", {"", 0}}, {":prefill", {":step", 1}}, {":decode", {":step", 1}}};
  EXPECT_EQ(tree, expected);
  fs::remove(file);
}

}  // namespace
}  // namespace kscope
