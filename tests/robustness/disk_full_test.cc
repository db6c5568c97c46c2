// A disk that fills during an import, injected through SQLite's own limit on the database's
// size (PRAGMA max_page_count: SQLite then fails the write with SQLITE_FULL, as on a full
// file system): the import fails with one line naming the database and the fix, and the
// store's file is byte for byte what it was. (SQLite rolls such a transaction back by itself;
// the writes the import still tried after that were once committed one by one, each on its
// own: util/sqlite.cc now refuses them.)
#include <gtest/gtest.h>

#include "robustness/bad_input_fixture.h"

namespace kscope {
namespace {

using testing::NsysData;
using testing::ReadFile;

class DiskFull : public testing::BadInput {};

TEST_F(DiskFull, AnImportThatFillsTheDiskKeepsTheStoreAsItWas) {
  {
    auto s = store::Store::Open(db_, sql::OpenMode::kReadWrite);
    ASSERT_TRUE(s.ok()) << s.error().Line();
    // No page beyond those the store has: the next import's first new page fails.
    auto pages = s->db().Prepare("PRAGMA page_count");
    ASSERT_TRUE(pages.ok() && pages->Step());
    const int64_t n = pages->Int(0);
    ASSERT_TRUE(s->db().Exec("PRAGMA max_page_count = " + std::to_string(n)).ok());
    auto out = import::ImportFiles(*s, {NsysData("llama.sqlite")}, {});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error().Line(),
              "kscope: error: " + db_ +
                  ": the disk is full (database or disk is full); free space on the file system of " + dir_.string() +
                  " and try again; the store is as it was before this command");
  }
  const std::string after = ReadFile(db_);
  EXPECT_TRUE(after == before_) << "the store's file changed";
  // And the store still reads: its one run is there.
  auto s = store::Store::Open(db_, sql::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.error().Line();
  auto runs = s->ListRuns();
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 1U);
}

}  // namespace
}  // namespace kscope
