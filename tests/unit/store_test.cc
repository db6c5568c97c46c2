#include "store/store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store/schema.h"
#include "test_support.h"

namespace kscope::store {
namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kscope_store_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(StoreTest, CreatesSchemaWithVersionAndReopens) {
  const std::string path = Path("a/b/k.db");  // parent folders are created
  {
    auto s = Store::Open(path, sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok()) << s.error().Line();
    auto q = s->db().Prepare("SELECT value FROM kscope_meta WHERE key = 'schema_version'");
    ASSERT_TRUE(q.ok());
    ASSERT_TRUE(q->Step());
    EXPECT_EQ(q->Text(0), std::to_string(kSchemaVersion));
  }
  auto again = Store::Open(path, sql::OpenMode::kReadOnly);
  EXPECT_TRUE(again.ok());
}

TEST_F(StoreTest, RefusesNewerAndNotYetUpgradedSchemaVersions) {
  const std::string path = Path("k.db");
  {
    auto s = Store::Open(path, sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->db().Exec("UPDATE kscope_meta SET value = '99' WHERE key = 'schema_version'").ok());
  }
  auto s = Store::Open(path, sql::OpenMode::kReadWrite);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().Line(), "kscope: error: " + path +
                                  ": written by a newer kscope (schema version 99; this kscope "
                                  "reads up to " +
                                  std::to_string(store::kSchemaVersion) + "); use that kscope, or a newer one");
  {
    auto raw = sql::Db::Open(path, sql::OpenMode::kReadWrite);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(raw->Exec("UPDATE kscope_meta SET value = '3' WHERE key = 'schema_version'").ok());
  }
  // The library refuses an older store; the kscope command upgrades it (import::OpenStore,
  // tests/unit/store_upgrade_test.cc).
  auto old = Store::Open(path, sql::OpenMode::kReadOnly);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.error().Line(), "kscope: error: " + path + ": store of schema version 3, older than this kscope's (" +
                                    std::to_string(store::kSchemaVersion) +
                                    "), not yet upgraded; open it with the kscope command once (it upgrades the "
                                    "store in place, keeping a copy)");
}

// An import writes to the file it opened: if that file is removed or replaced meanwhile, what
// it wrote is gone, and the import must say so rather than report success.
TEST_F(StoreTest, KnowsWhenItsFileWasRemovedOrReplaced) {
  const std::string path = Path("gone.db");
  auto s = Store::Open(path, sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->CheckStillThere().ok());
  std::filesystem::remove(path);
  ASSERT_FALSE(s->CheckStillThere().ok());
  EXPECT_EQ(s->CheckStillThere().error().Line(),
            "kscope: error: " + path +
                ": the database file was removed, moved or replaced while kscope wrote to it; what it wrote is lost; "
                "keep the store in place during an import, and import again");
  std::ofstream(path) << "another file under the same name";
  EXPECT_FALSE(s->CheckStillThere().ok());
}

TEST_F(StoreTest, RefusesADatabaseThatIsNotKscopes) {
  const std::string path = testing::NsysData("tiny_cuda.sqlite");
  auto s = Store::Open(path, sql::OpenMode::kReadOnly);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().what, "not a kscope database (it has no kscope_meta table)");
}

TEST_F(StoreTest, MissingDatabaseForReadingSaysHowToMakeOne) {
  auto s = Store::Open(Path("none.db"), sql::OpenMode::kReadOnly);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().what, "no kscope database here");
}

TEST_F(StoreTest, InternsStringsOnce) {
  auto s = Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto a = s->InternString("void k<(int)1>(float *)");
  auto b = s->InternString("other");
  auto c = s->InternString("void k<(int)1>(float *)");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, *c);
  EXPECT_NE(*a, *b);
}

}  // namespace
}  // namespace kscope::store
