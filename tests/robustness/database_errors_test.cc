// Database-level failures, with the kscope binary on a store holding the real tiny_cuda run:
// a damaged file, a read-only file, a read-only folder, a lock held too long. Each failure is
// one line naming the database file, what is wrong and how to fix it; a database in a
// read-only folder is still read by runs, stats and report. Run as root, kscope runs as the
// user nobody, for whom the permissions hold.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kscope_binary.h"
#include "robustness/bad_input_fixture.h"
#include "robustness/kscope_as_nobody.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::WriteBytes;

class DatabaseErrors : public testing::BadInput {
 protected:
  void SetUp() override {
    if (geteuid() == 0 && !testing::OthersMayRun(KSCOPE_BINARY)) {
      GTEST_SKIP() << "running as root, and the user nobody may not run " << KSCOPE_BINARY;
    }
    BadInput::SetUp();
  }
  void TearDown() override {
    if (dir_.empty()) return;  // skipped
    fs::permissions(dir_, fs::perms::owner_all);
    BadInput::TearDown();
  }

  // kscope --db DB ARGS..., as the user nobody when the test runs as root; exit status and output.
  std::pair<int, std::string> Kscope(std::vector<std::string> args) {
    args.insert(args.begin(), {KSCOPE_BINARY, "--db", db_});
    const std::string log =
        (fs::temp_directory_path() / ("kscope_dberr_" + std::to_string(getpid()) + ".log")).string();
    return testing::RunKscopeAs(std::move(args), log, true);
  }

  // A folder anyone may write, outside the store's.
  std::string OpenFolder(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    fs::permissions(p, fs::perms::all);
    return p.string();
  }
};

// Everything after the first page overwritten: kscope says the file is damaged, how to check
// it and how to recover, and leaves it as it was.
TEST_F(DatabaseErrors, DamagedDatabase) {
  fs::permissions(dir_, fs::perms::all);  // a file anyone may write, in a folder anyone may write
  fs::permissions(db_, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::group_write |
                           fs::perms::others_read | fs::perms::others_write);
  std::string bytes = ReadFile(db_);
  bytes.replace(4096, std::string::npos, std::string(bytes.size() - 4096, '\xa5'));
  WriteBytes(db_, bytes);
  const std::string line = "kscope: error: " + db_ +
                           ": the database file is damaged (database disk image is malformed); check it with: "
                           "sqlite3 " +
                           db_ +
                           " \"PRAGMA integrity_check\"; keep a copy, recover what it still holds with: sqlite3 " +
                           db_ + " .recover | sqlite3 RECOVERED.db, or start a new database with --db NEW.db\n";
  auto [rc, out] = Kscope({"runs"});
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(out, line);
  std::tie(rc, out) = Kscope({"import", CopyOfTiny("again.sqlite"), "--force"});
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(out, line);
  EXPECT_TRUE(ReadFile(db_) == bytes) << "the damaged file changed";
}

TEST_F(DatabaseErrors, ReadOnlyDatabaseFile) {
  const std::string copy = CopyOfTiny("again.sqlite");
  fs::permissions(db_, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  auto [rc, out] = Kscope({"import", copy, "--force"});
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(out, "kscope: error: " + db_ +
                     ": the database file is read-only for you (attempt to write a readonly database); give yourself "
                     "write permission (chmod u+w " +
                     db_ + "), or write to another database with --db NEW.db\n");
  EXPECT_TRUE(ReadFile(db_) == before_) << "the store's file changed";
}

// The folder read-only, the file not: an import says which folder and why; runs, stats and a
// report into another folder read the database as they would anywhere.
TEST_F(DatabaseErrors, DatabaseInReadOnlyFolder) {
  auto [rc, runs] = Kscope({"runs", "--format", "csv"});
  ASSERT_EQ(rc, 0) << runs;
  auto [rc_stats, stats] = Kscope({"stats", "1", "-r", "cuda_gpu_kern_sum", "-f", "csv"});
  ASSERT_EQ(rc_stats, 0) << stats;
  const std::string copy = CopyOfTiny("again.sqlite");
  fs::permissions(db_, fs::perms::all);
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);

  std::string out;
  std::tie(rc, out) = Kscope({"import", copy, "--force"});
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(
      out, "kscope: error: " + db_ + ": its folder " + dir_.string() +
               " is read-only for you, and a write needs to create " + db_ + "-wal and " + db_ +
               "-shm there (attempt to write a readonly database); give yourself write permission on the folder (chmod "
               "u+w " +
               dir_.string() + "), or write to another database with --db NEW.db\n");
  std::tie(rc, out) = Kscope({"runs", "--format", "csv"});
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, runs);
  std::tie(rc, out) = Kscope({"stats", "1", "-r", "cuda_gpu_kern_sum", "-f", "csv"});
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, stats);
  const std::string reports = OpenFolder("kscope_dberr_report");
  std::tie(rc, out) = Kscope({"report", "1", "--out", reports + "/r"});
  EXPECT_EQ(rc, 0) << out;
  EXPECT_TRUE(fs::exists(reports + "/r/report.html"));
  fs::remove_all(reports);
  EXPECT_FALSE(fs::exists(db_ + "-shm"));
  EXPECT_TRUE(ReadFile(db_) == before_) << "the store's file changed";
}

// Another process holds the write lock: an import waits as long as KSCOPE_LOCK_WAIT_S says
// (here 0 s), then says so; a reader is not blocked.
TEST_F(DatabaseErrors, LockedLongerThanTheWait) {
  auto holder = sql::Db::Open(db_, sql::OpenMode::kReadWrite);
  ASSERT_TRUE(holder.ok()) << holder.error().Line();
  ASSERT_TRUE(holder->Exec("BEGIN IMMEDIATE").ok());
  const std::string copy = CopyOfTiny("again.sqlite");
  const std::string log = Path("locked.log");
  setenv("KSCOPE_LOCK_WAIT_S", "0", 1);
  const int rc = testing::RunKscope({"--db", db_, "import", copy, "--force"}, log);
  const int runs_rc = testing::RunKscope({"--db", db_, "runs"}, Path("runs.log"));
  unsetenv("KSCOPE_LOCK_WAIT_S");
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(ReadFile(log), "kscope: error: " + db_ +
                               ": another process held the write lock longer than kscope waits (0 s); let the other "
                               "kscope finish and try again, or wait longer: KSCOPE_LOCK_WAIT_S=SECONDS\n");
  EXPECT_EQ(runs_rc, 0) << ReadFile(Path("runs.log"));
  ASSERT_TRUE(holder->Exec("ROLLBACK").ok());
}

}  // namespace
}  // namespace kscope
