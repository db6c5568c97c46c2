// A store holding one good run of the real tiny_cuda export, and the checks a bad input
// must pass: its import fails with one exact line, or its bad rows are counted, and a
// refused import leaves the store's file byte for byte as it was.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "import/import_files.h"
#include "store/store.h"
#include "test_support.h"
#include "util/sqlite.h"

namespace kscope::testing {

inline const std::string kTiny = NsysData("tiny_cuda.sqlite");

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// Runs SQL on a copy of an export, the way a broken exporter or a bad edit would.
inline void Edit(const std::string& path, const std::string& sql) {
  auto db = sql::Db::Open(path, sql::OpenMode::kReadWrite);
  ASSERT_TRUE(db.ok()) << db.error().Line();
  auto st = db->Exec(sql);
  ASSERT_TRUE(st.ok()) << st.error().Line();
}

class BadInput : public ::testing::Test {
 protected:
  // A file-backed store with one good run, closed so that its file holds everything.
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kscope_robust_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    db_ = Path("kscope.db");
    {
      auto s = store::Store::Open(db_, sql::OpenMode::kCreate);
      ASSERT_TRUE(s.ok()) << s.error().Line();
      auto out = import::ImportFiles(*s, {kTiny}, {});
      ASSERT_TRUE(out.ok()) << out.error().Line();
    }
    before_ = ReadFile(db_);
    ASSERT_GT(before_.size(), 0U);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  [[nodiscard]] std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // A copy of tiny_cuda.sqlite under `name`.
  std::string CopyOfTiny(const std::string& name) {
    const std::string p = Path(name);
    std::filesystem::copy_file(kTiny, p);
    return p;
  }

  // Importing `paths` into the store fails with exactly `line`, and the store file is what it was.
  void ExpectRejected(const std::vector<std::string>& paths, const std::string& line,
                      const import::ImportOptions& options = {}) {
    {
      auto s = store::Store::Open(db_, sql::OpenMode::kReadWrite);
      ASSERT_TRUE(s.ok()) << s.error().Line();
      auto out = import::ImportFiles(*s, paths, options);
      ASSERT_FALSE(out.ok());
      EXPECT_EQ(out.error().Line(), line);
    }
    EXPECT_FALSE(std::filesystem::exists(db_ + "-wal"));
    const std::string after = ReadFile(db_);
    EXPECT_EQ(after.size(), before_.size());
    EXPECT_TRUE(after == before_) << "the store's file changed";
  }

  void ExpectRejected(const std::string& path, const std::string& line) {
    ExpectRejected(std::vector<std::string>{path}, line);
  }

  // The import problems of `run`, one "location | what | raw" line each, by location.
  static std::string Problems(store::Store& s, int64_t run) {
    auto q = s.db().Prepare("SELECT location, what, raw FROM import_problem WHERE run_id = ?1 ORDER BY location, id");
    if (!q.ok()) return q.error().Line();
    q->Bind(1, run);
    std::string out;
    while (q->Step()) out += q->Text(0) + " | " + q->Text(1) + " | " + q->Text(2) + "\n";
    return out;
  }

  std::filesystem::path dir_;
  std::string db_;
  std::string before_;
};

}  // namespace kscope::testing
