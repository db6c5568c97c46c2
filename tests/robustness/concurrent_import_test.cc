// Many kscope processes importing into one database at once: each waits its turn for the
// write lock and succeeds, and every run holds what a single import holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "kscope_binary.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

pid_t StartImport(const std::string& db, const std::string& file, const std::string& label, const std::string& log) {
  return testing::StartKscope({"--db", db, "import", file, "--label", label, "--force"}, log);
}

// What a run holds, as the tests compare it: its stream counts and nsys's kernel and API sums.
std::string RunDigest(store::Store& store, int64_t run) {
  std::string out;
  for (const char* stream : {"kernel", "api_call", "memop", "nvtx_range"}) {
    auto rows = store.StreamRows(run, stream);
    out += std::string(stream) + "=" + (rows.ok() ? std::to_string(*rows) : rows.error().Line()) + "\n";
  }
  for (const char* report : {"cuda_gpu_kern_sum", "cuda_api_sum", "nvtx_sum"})
    out += testing::ReportCsv(store, run, report);
  return out;
}

TEST(ConcurrentImport, EightProcessesIntoOneNewDatabaseAllSucceedWithEqualRuns) {
  const fs::path dir = fs::temp_directory_path() /
                       ("kscope_concurrent_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string input = testing::NsysData("tiny_cuda.sqlite");

  // One import alone: what every run must hold, and the time it takes.
  const std::string single_db = (dir / "single.db").string();
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(testing::WaitExit(StartImport(single_db, input, "alone", (dir / "single.log").string())), 0)
      << testing::ReadFile((dir / "single.log").string());
  const double single_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto single = store::Store::Open(single_db, sql::OpenMode::kReadOnly);
  ASSERT_TRUE(single.ok()) << single.error().Line();
  const std::string expected = RunDigest(*single, 1);
  ASSERT_NE(expected.find("kernel=9\n"), std::string::npos) << expected;

  constexpr int kWriters = 8;
  const std::string db = (dir / "shared.db").string();
  std::vector<pid_t> pids;
  const auto t1 = std::chrono::steady_clock::now();
  for (int i = 0; i < kWriters; ++i) {
    const std::string log = (dir / ("import" + std::to_string(i) + ".log")).string();
    pids.push_back(StartImport(db, input, "writer " + std::to_string(i), log));
    ASSERT_GT(pids.back(), 0);
  }
  for (int i = 0; i < kWriters; ++i) {
    EXPECT_EQ(testing::WaitExit(pids[i]), 0)
        << testing::ReadFile((dir / ("import" + std::to_string(i) + ".log")).string());
  }
  const double all_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::cout << "one import: " << single_s << " s; " << kWriters << " at once: " << all_s << " s\n";

  auto shared = store::Store::Open(db, sql::OpenMode::kReadOnly);
  ASSERT_TRUE(shared.ok()) << shared.error().Line();
  auto runs = shared->ListRuns();
  ASSERT_TRUE(runs.ok()) << runs.error().Line();
  ASSERT_EQ(runs->size(), static_cast<size_t>(kWriters));
  std::vector<std::string> labels;
  for (const auto& r : *runs) {
    EXPECT_EQ(RunDigest(*shared, r.id), expected) << "run " << r.id;
    labels.push_back(r.manifest.label.value_or(""));
  }
  std::sort(labels.begin(), labels.end());
  std::vector<std::string> want;
  for (int i = 0; i < kWriters; ++i) want.push_back("writer " + std::to_string(i));
  EXPECT_EQ(labels, want);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kscope
