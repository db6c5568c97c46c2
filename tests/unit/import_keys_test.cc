// Imports run with SQLite's foreign-key checks off (a bulk load: the writers assign the keys
// themselves). Here every kind of file goes in, into new runs and into runs that already hold
// data, and then SQLite checks every key of the store: none may point at a missing row. The
// checks are on again after each import, a failed one included.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "import/import_files.h"
#include "store/store.h"
#include "test_support.h"
#include "zoo_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

const std::string kNcu = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/";

std::string UnpackedReport(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("kscope_keys_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / (name + ".ncu-rep")).string();
  std::ofstream(path, std::ios::binary) << testing::Unzstd(kNcu + name + ".ncu-rep.zst");
  return path;
}

// Every row `PRAGMA foreign_key_check` reports: "table rowid parent".
std::vector<std::string> BrokenKeys(store::Store& s) {
  auto q = s.db().Prepare("PRAGMA foreign_key_check");
  EXPECT_TRUE(q.ok());
  std::vector<std::string> out;
  while (q->Step()) out.push_back(q->Text(0) + " " + std::to_string(q->Int(1)) + " " + q->Text(2));
  return out;
}

int64_t ForeignKeysOn(store::Store& s) {
  auto q = s.db().Prepare("PRAGMA foreign_keys");
  EXPECT_TRUE(q.ok() && q->Step());
  return q->Int(0);
}

int64_t Count(store::Store& s, const std::string& table) {
  auto q = s.db().Prepare("SELECT count(*) FROM " + table);
  EXPECT_TRUE(q.ok() && q->Step());
  return q->Int(0);
}

TEST(ImportKeys, EveryKeyOfEveryKindOfFileHolds) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(ForeignKeysOn(*s), 1);

  // An nsys export, then a native .ncu-rep into its run.
  auto nsys = import::ImportFiles(*s, {testing::NsysData("llama.sqlite")}, {});
  ASSERT_TRUE(nsys.ok()) << nsys.error().Line();
  import::ImportOptions into;
  into.into_run = nsys->front().run_id;
  auto rep = import::ImportFiles(*s, {UnpackedReport("llama_deep")}, into);
  ASSERT_TRUE(rep.ok()) << rep.error().Line();
  EXPECT_EQ(ForeignKeysOn(*s), 1);
  // ncu's raw and details pages of one report, merged into one run.
  auto pages =
      import::ImportFiles(*s, {kNcu + "tiny_cuda_gemm_full_raw.csv", kNcu + "tiny_cuda_gemm_full_details.csv"}, {});
  ASSERT_TRUE(pages.ok()) << pages.error().Line();
  // A zoo capture with shape-recording op ranges and its ncu page (launch figures with shapes).
  const int64_t shapes = testing::ImportZoo(*s, "decoder_train_shapes", {"profile_raw.csv"});
  EXPECT_GT(shapes, 0);
  // A failed import: nothing kept, and the checks on again.
  const std::string cut =
      (fs::temp_directory_path() / ("kscope_keys_cut_" + std::to_string(getpid()) + ".ncu-rep")).string();
  {
    const std::string whole = testing::ReadFile(UnpackedReport("tiny_cuda_basic"));
    std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() / 2);
  }
  const int64_t metrics_before = Count(*s, "ncu_metric");
  EXPECT_FALSE(import::ImportFiles(*s, {cut}, {}).ok());
  EXPECT_EQ(Count(*s, "ncu_metric"), metrics_before);
  EXPECT_EQ(ForeignKeysOn(*s), 1);

  // What the checks would have guarded: rows in every keyed table of the ncu and nsys data.
  EXPECT_GT(Count(*s, "ncu_launch"), 0);
  EXPECT_GT(metrics_before, 10000);
  EXPECT_GT(Count(*s, "ncu_rule"), 0);
  EXPECT_GT(Count(*s, "ncu_launch_figures"), 0);
  EXPECT_EQ(BrokenKeys(*s), std::vector<std::string>{});

  // The check sees a broken key: a metric of a launch that does not exist.
  ASSERT_TRUE(s->db().Exec("PRAGMA foreign_keys=OFF").ok());
  ASSERT_TRUE(s->db()
                  .Exec("INSERT INTO ncu_metric(run_id, launch_id, metric_id, value, unit, precise) "
                        "SELECT run_id, 999999, metric_id, 1, '', 1 FROM ncu_metric LIMIT 1")
                  .ok());
  EXPECT_EQ(BrokenKeys(*s).size(), 1U);
  fs::remove(cut);
}

}  // namespace
}  // namespace kscope
