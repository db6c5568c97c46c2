// kill -9 at points spread over a store's upgrade and over its creation (issue 24, items 6 and 7):
// the store afterwards opens with every run the upgrade started from (or as the old store, which
// the next command upgrades), or, for a store being made, with the run complete or absent and the
// next import succeeding. Readers started while a store is being created are told the truth: the
// runs, or that the store is empty or being made; never that it is no kscope database. The kill
// points are drawn from a fixed seed over the operation's measured duration, so a failure repeats.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kscope_binary.h"
#include "recorded_runner.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using Clock = std::chrono::steady_clock;

constexpr int kKills = 8;

class KillPoints : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kscope_kill_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs kscope to its end: its exit status and its output.
  std::pair<int, std::string> Kscope(const std::string& db, std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    const int rc = testing::RunKscope(args, Path("out.log"));
    return {rc, ReadFile(Path("out.log"))};
  }
  // Starts kscope and sends it `signal` (SIGKILL unless said) after `after`, unless it ended first.
  void KillAfter(const std::string& db, std::vector<std::string> args, std::chrono::microseconds after,
                 int signal = SIGKILL) {
    args.insert(args.begin(), {"--db", db});
    const pid_t pid = testing::StartKscope(args, Path("killed.log"));
    std::this_thread::sleep_for(after);
    kill(pid, signal);
    testing::WaitExit(pid);
  }
  // The names in the test's folder that start with `prefix`, sorted.
  std::vector<std::string> FilesBeside(const std::string& prefix) const {
    std::vector<std::string> names;
    for (const auto& f : fs::directory_iterator(dir_)) {
      if (f.path().filename().string().starts_with(prefix)) names.push_back(f.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  // How long `args` takes on a fresh copy made by `prepare`.
  template <typename Prepare>
  std::chrono::microseconds Duration(const std::string& db, const std::vector<std::string>& args, Prepare prepare) {
    prepare(db);
    const auto t0 = Clock::now();
    auto [rc, out] = Kscope(db, args);
    EXPECT_EQ(rc, 0) << out;
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0);
  }

  fs::path dir_;
};

void UnpackV3(const std::string& db) {
  for (const auto& f : fs::directory_iterator(fs::path(db).parent_path())) {
    if (f.path().string().starts_with(db)) fs::remove(f.path());
  }
  std::ofstream(db, std::ios::binary) << testing::Unzstd(std::string(KSCOPE_TEST_DATA_DIR) +
                                                         "/store_versions/v3/store.db.zst");
}

// What the v3 fixture holds, as today's kscope shows it once upgraded.
const char* kRunsQuery =
    "SELECT r.id, r.label, (SELECT count(*) FROM ncu_metric m WHERE m.run_id = r.id), (SELECT sum(n) FROM "
    "kernel_summary k WHERE k.run_id = r.id) FROM run r ORDER BY r.id";

TEST_F(KillPoints, KilledUpgradesLeaveTheStoreOpenableWithEveryRun) {
  const std::string db = Path("store.db");
  const auto full = Duration(db, {"runs"}, UnpackV3);
  auto [rc, expected] = Kscope(db, {"query", "--format", "csv", kRunsQuery});
  ASSERT_EQ(rc, 0) << expected;
  ASSERT_NE(expected.find("\n2,"), std::string::npos) << expected;
  std::mt19937 random(24);
  for (int i = 0; i < kKills; ++i) {
    UnpackV3(db);
    const auto at =
        std::chrono::microseconds(std::uniform_int_distribution<int64_t>(0, full.count() + full.count() / 4)(random));
    KillAfter(db, {"runs"}, at);
    auto [rc2, out] = Kscope(db, {"query", "--format", "csv", kRunsQuery});
    EXPECT_EQ(rc2, 0) << "killed after " << at.count() << " us: " << out;
    EXPECT_TRUE(out.ends_with(expected)) << "killed after " << at.count() << " us: " << out;
  }
}

// The schema version and run count of a store, read without upgrading it (a copy kept beside it).
std::string VersionAndRuns(const std::string& path) {
  sqlite3* raw = nullptr;
  std::string out;
  const std::string uri = "file:" + path + "?immutable=1";  // leaves no -wal or -shm beside it
  if (sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) == SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(raw,
                       "SELECT (SELECT value FROM kscope_meta WHERE key = 'schema_version') || ',' || "
                       "(SELECT count(*) FROM run)",
                       -1, &q, nullptr);
    if (q != nullptr && sqlite3_step(q) == SQLITE_ROW) out = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
  }
  sqlite3_close(raw);
  return out;
}

// An upgrade interrupted at points spread over it (kill -9, then SIGINT), while it copies the
// store beside itself or after: SIGINT leaves no partial copy; after kill -9 the next command
// removes it. Either way, once the next command has run, the folder holds the store and one
// whole copy of it as it was (schema 3, both runs), and nothing else: no partial or second copy.
TEST_F(KillPoints, InterruptedUpgradesLeaveOneWholeCopy) {
  const std::string db = Path("store.db");
  const std::string partial = db + ".schema3.bak.partial";
  const auto full = Duration(db, {"runs"}, UnpackV3);
  const std::vector<std::string> upgraded = {"store.db", "store.db.schema3.bak"};
  ASSERT_EQ(FilesBeside("store.db"), upgraded);
  std::mt19937 random(31);
  int partial_left = 0;
  for (int signal : {SIGKILL, SIGINT}) {
    for (int i = 0; i < kKills; ++i) {
      UnpackV3(db);
      // Half the points over the whole command, half from when the copy begins (the first at once).
      const bool from_copy = i % 2 == 1;
      const auto at = std::chrono::microseconds(
          i == 1 ? 0 : std::uniform_int_distribution<int64_t>(0, from_copy ? full.count() / 2 : full.count())(random));
      const pid_t pid = testing::StartKscope({"--db", db, "runs"}, Path("killed.log"));
      bool exited = false;
      while (from_copy && !exited && !fs::exists(partial)) {
        exited = waitpid(pid, nullptr, WNOHANG) == pid;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (!exited) {
        std::this_thread::sleep_for(at);
        kill(pid, signal);
        testing::WaitExit(pid);
      }
      const std::string where =
          fmt::format("signal {} {} us after {}", signal, at.count(), from_copy ? "the copy began" : "the start");
      const auto left = FilesBeside("store.db.schema3.bak.partial");
      if (signal == SIGINT) {
        EXPECT_TRUE(left.empty()) << where << " left " << left.front();
      }
      partial_left += left.empty() ? 0 : 1;
      auto [rc, out] = Kscope(db, {"runs"});
      EXPECT_EQ(rc, 0) << where << ": " << out;
      EXPECT_EQ(FilesBeside("store.db"), upgraded) << where;
      EXPECT_EQ(VersionAndRuns(db + ".schema3.bak"), "3,2") << where;
    }
  }
  EXPECT_GT(partial_left, 0) << "no kill -9 fell inside the upgrade's copy: the points do not test it";
}

// kill -9 at points spread over `kscope merge OTHER.db` (two runs into a store of one): the
// target afterwards holds its own run as it was and the merged runs all, each whole, or none;
// and the merge run again completes.
TEST_F(KillPoints, KilledMergesLeaveTheTargetWhole) {
  const std::string other = Path("other.db");
  const std::string cuda_only = Path("cuda_only.sqlite");
  std::ofstream(cuda_only, std::ios::binary) << testing::Unzstd(testing::NsysData("cuda_only.sqlite.zst"));
  ASSERT_EQ(Kscope(other, {"import", testing::NsysData("llama.sqlite")}).first, 0);
  ASSERT_EQ(Kscope(other, {"import", cuda_only}).first, 0);
  const std::string target = Path("target.db");
  // Each run: its label, kernel launches, source files, event rows and metric rows.
  const std::string runs_query =
      "SELECT r.id, r.label, (SELECT sum(n) FROM kernel_summary k WHERE k.run_id = r.id), (SELECT count(*) FROM "
      "source_file s WHERE s.run_id = r.id), (SELECT sum(rows) FROM event_stream e WHERE e.run_id = r.id), (SELECT "
      "count(*) FROM ncu_metric m WHERE m.run_id = r.id) FROM run r ORDER BY r.id";
  auto runs = [&] {
    auto [rc, out] = Kscope(target, {"query", "--format", "csv", runs_query});
    EXPECT_EQ(rc, 0) << out;
    return out;
  };
  auto fresh_target = [&](const std::string& path) {
    for (const auto& f : fs::directory_iterator(dir_)) {
      if (f.path().string().starts_with(path)) fs::remove(f.path());
    }
    ASSERT_EQ(Kscope(path, {"import", testing::NsysData("tiny_cuda.sqlite")}).first, 0);
  };
  fresh_target(target);
  const std::string none = runs();
  const auto full = Duration(target, {"merge", other}, fresh_target);
  const std::string all = runs();
  ASSERT_NE(all.find("\n3,"), std::string::npos) << all;
  ASSERT_TRUE(all.starts_with(none)) << all;
  std::mt19937 random(11);
  int merged_before_kill = 0;
  for (int i = 0; i < kKills; ++i) {
    fresh_target(target);
    const auto at =
        std::chrono::microseconds(std::uniform_int_distribution<int64_t>(0, full.count() + full.count() / 4)(random));
    KillAfter(target, {"merge", other}, at);
    const std::string after = runs();
    EXPECT_TRUE(after == none || after == all) << "killed after " << at.count() << " us: " << after;
    auto [rc, check] = Kscope(target, {"query", "--format", "csv", "SELECT * FROM pragma_integrity_check"});
    EXPECT_EQ(check, "integrity_check\nok\n") << "killed after " << at.count() << " us";
    if (after == all) {
      ++merged_before_kill;
      continue;
    }
    auto [rc2, out] = Kscope(target, {"merge", other});
    EXPECT_EQ(rc2, 0) << "killed after " << at.count() << " us: " << out;
    EXPECT_EQ(runs(), all) << "killed after " << at.count() << " us";
  }
  EXPECT_LT(merged_before_kill, kKills) << "every kill came after the merge: the points do not test it";
}

TEST_F(KillPoints, KilledCreationsLeaveAStoreTheNextImportCompletes) {
  const std::string db = Path("new.db");
  auto fresh = [](const std::string& path) {
    for (const auto& f : fs::directory_iterator(fs::path(path).parent_path())) {
      if (f.path().string().starts_with(path)) fs::remove(f.path());
    }
  };
  const std::vector<std::string> import = {"import", testing::NsysData("tiny_cuda.sqlite")};
  const auto full = Duration(db, import, fresh);
  std::mt19937 random(7);
  for (int i = 0; i < kKills; ++i) {
    fresh(db);
    const auto at =
        std::chrono::microseconds(std::uniform_int_distribution<int64_t>(0, full.count() + full.count() / 4)(random));
    KillAfter(db, import, at);
    auto [rc, out] = Kscope(db, {"import", "--force", testing::NsysData("tiny_cuda.sqlite")});
    EXPECT_EQ(rc, 0) << "killed after " << at.count() << " us: " << out;
    auto [rc2, runs] = Kscope(db, {"query", "--format", "csv",
                                   "SELECT count(*), count(DISTINCT n) FROM (SELECT "
                                   "run_id, sum(n) AS n FROM kernel_summary GROUP BY run_id)"});
    EXPECT_EQ(rc2, 0) << runs;
    // One run (the killed import left none) or two equal ones (it had committed).
    EXPECT_TRUE(runs.ends_with("\n1,1\n") || runs.ends_with("\n2,1\n"))
        << "killed after " << at.count() << " us: " << runs;
  }
}

// Readers started again and again, three at a time, while new stores are made and filled: each
// says the runs or the truth about a store not there yet or empty, never something else.
TEST_F(KillPoints, ReadersDuringCreationAreToldTheTruth) {
  std::atomic<int> reads = 0;
  std::mutex mutex;
  std::vector<std::string> wrong;
  for (int round = 0; round < 4; ++round) {
    const std::string db = Path("made" + std::to_string(round) + ".db");
    const pid_t writer = testing::StartKscope({"--db", db, "import", testing::NsysData("llama.sqlite")}, Path("w.log"));
    std::atomic<bool> done = false;
    std::vector<std::thread> readers;
    for (int r = 0; r < 3; ++r) {
      readers.emplace_back([&, r] {
        const std::string log = Path("r" + std::to_string(r) + ".log");
        while (!done) {
          const int rc = testing::RunKscope({"--db", db, "runs", "--format", "csv"}, log);
          const std::string out = ReadFile(log);
          const bool truth = (rc == 0 && out.starts_with("Run,")) ||
                             out.find("no kscope database here") != std::string::npos ||
                             out.find("(it is empty, or another kscope is making it)") != std::string::npos;
          ++reads;
          if (!truth) {
            const std::lock_guard lock(mutex);
            wrong.push_back(out);
          }
        }
      });
    }
    EXPECT_EQ(testing::WaitExit(writer), 0) << ReadFile(Path("w.log"));
    done = true;
    for (auto& t : readers) t.join();
  }
  EXPECT_GE(reads, 12);
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " of " << reads
                             << " reads were told something else, e.g.: " << wrong.front();
}

}  // namespace
}  // namespace kscope
