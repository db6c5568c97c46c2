// The wrapper mode for real: Open MPI's mpirun starts one kscope per rank, `kscope profile
// profile.rank=0 -- python3 rendezvous.py`, on a CPU-only workload whose ranks meet over TCP in
// every run (tests/helpers/rendezvous.py). nsys, ncu and nvidia-smi are stand-ins that print and
// write what the real tools did on the GPU machine and run the workload for real
// (tests/helpers/standin_profiler.py). Every rank must run the workload once per pass, each
// pass must be one rendezvous of all ranks, and only rank 0 may run under the profilers.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kscope_binary.h"
#include "recorded_runner.h"
#include "store/store.h"
#include "test_support.h"
#include "tools/process.h"
#include "tools/tools.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
const std::string kRun = std::string(KSCOPE_TEST_DATA_DIR) + "/capture/llama_h100/";
const std::string kCatalog = std::string(KSCOPE_TEST_DATA_DIR) + "/capture/ncu_catalog_h100/";
const std::string kHelpers = std::string(KSCOPE_SOURCE_DIR) + "/tests/helpers/";

// Whether a TCP port on the loopback can be bound now.
bool Bindable(int port) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;  // NOLINT: the socket API takes sockaddr*
  close(s);
  return ok;
}

// A port, and the next one (the second pass's), that nothing holds; below Linux's ephemeral
// range, so that no connection's own end takes it.
int FreePort() {
  for (int port = 20000 + static_cast<int>(getpid() % 5000) * 2; port < 32000; port += 2) {
    if (Bindable(port) && Bindable(port + 1)) return port;
  }
  return 29500;
}

class RankWrapper : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!capture::FindOnPath("mpirun"))
      GTEST_FAIL() << "mpirun is missing: scripts/install-deps.sh installs openmpi-bin";
    dir_ = fs::temp_directory_path() / ("kscope_ranks_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "data");
    fs::create_directories(dir_ / "bin");
    // The recorded outputs, unpacked, and the stand-ins under the tools' names.
    for (const char* f : {"nsys_version.log", "ncu_version.log", "nvidia_smi.log", "nsys_profile.log",
                          "nsys_export.log", "ncu_pass1.log"}) {
      fs::copy_file(kRun + f, dir_ / "data" / f);
    }
    std::ofstream(dir_ / "data" / "discovery.sqlite", std::ios::binary)
        << testing::Unzstd(kRun + "discovery.sqlite.zst");
    std::ofstream(dir_ / "data" / "pass1_raw.csv", std::ios::binary) << testing::Unzstd(kRun + "pass1_raw.csv.zst");
    std::ofstream(dir_ / "data" / "pass1_details.csv", std::ios::binary)
        << testing::Unzstd(kRun + "pass1_details.csv.zst");
    fs::copy_file(kCatalog + "list_sets.txt", dir_ / "data" / "list_sets.txt");
    fs::copy_file(kCatalog + "list_sections.txt", dir_ / "data" / "list_sections.txt");
    std::ofstream(dir_ / "data" / "query_metrics.txt", std::ios::binary)
        << testing::Unzstd(kCatalog + "query_metrics.txt.zst");
    for (const char* tool : {"nsys", "ncu", "nvidia-smi"}) {
      fs::create_symlink(kHelpers + "standin_profiler.py", dir_ / "bin" / tool);
    }
    port_ = FreePort();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // mpirun -np 2 kscope profile profile.rank=0 ... -- python3 rendezvous.py LOG; its exit status.
  int Mpirun(const std::vector<std::string>& kscope_args) {
    const char* path = std::getenv("PATH");
    std::vector<std::string> argv{"mpirun",
                                  "--allow-run-as-root",
                                  "--oversubscribe",
                                  "-np",
                                  "2",
                                  "-x",
                                  "PATH=" + (dir_ / "bin").string() + ":" + (path ? path : "/usr/bin:/bin"),
                                  "-x",
                                  "KSCOPE_NSYS=" + (dir_ / "bin" / "nsys").string(),
                                  "-x",
                                  "KSCOPE_NCU=" + (dir_ / "bin" / "ncu").string(),
                                  "-x",
                                  "KSCOPE_STANDIN_DATA=" + (dir_ / "data").string(),
                                  "-x",
                                  "MASTER_PORT=" + std::to_string(port_),
                                  KSCOPE_BINARY,
                                  "--db",
                                  (dir_ / "kscope.db").string(),
                                  "profile"};
    argv.insert(argv.end(), kscope_args.begin(), kscope_args.end());
    // The settings of the recorded run (its ncu output is what ncu printed for that plan).
    for (const char* s : {"profile.rank=0", "selection.top=20", "selection.warmup=2", "selection.launches=3",
                          "selection.budget_s=0", "ncu.flops=off", "ncu.import=export"}) {
      argv.emplace_back(s);
    }
    argv.push_back("profile.runs_dir=" + (dir_ / "runs").string());
    argv.push_back("profile.cache_dir=" + (dir_ / "cache").string());
    argv.insert(argv.end(), {"--", "python3", kHelpers + "rendezvous.py", (dir_ / "passes.log").string()});
    capture::ProcessSpec spec;
    spec.argv = argv;
    spec.log_path = (dir_ / "mpirun.log").string();
    spec.timeout_s = 120;
    auto out = capture::SystemRunner().Run(spec);
    EXPECT_TRUE(out.ok()) << out.error().Line();
    return out.ok() ? out->exit_code : -1;
  }
  std::vector<std::string> Passes() {
    std::vector<std::string> lines;
    std::ifstream in(dir_ / "passes.log");
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::sort(lines.begin(), lines.end());
    return lines;
  }
  fs::path dir_;
  int port_ = 0;
};

TEST_F(RankWrapper, EveryRankRunsEachPassOnceAndOnlyRankZeroUnderTheProfilers) {
  ASSERT_EQ(Mpirun({}), 0) << testing::ReadFile((dir_ / "mpirun.log").string());
  const std::string p0 = std::to_string(port_), p1 = std::to_string(port_ + 1);
  EXPECT_EQ(Passes(), (std::vector<std::string>{
                          "rank=0 pass=0 port=" + p0 + " under=nsys", "rank=0 pass=1 port=" + p1 + " under=ncu",
                          "rank=1 pass=0 port=" + p0 + " under=none", "rank=1 pass=1 port=" + p1 + " under=none"}))
      << testing::ReadFile((dir_ / "mpirun.log").string());
  // Rank 0's profile is one complete run with the deep pass's launches.
  auto store = store::Store::Open((dir_ / "kscope.db").string(), sql::OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok());
  auto q = store->db().Prepare("SELECT count(*), max(status), (SELECT count(*) FROM ncu_launch) FROM run");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->Step());
  EXPECT_EQ(q->Int(0), 1);
  EXPECT_EQ(q->Text(1), "complete");
  EXPECT_GT(q->Int(2), 0);
  const std::string log = testing::ReadFile((dir_ / "mpirun.log").string());
  EXPECT_NE(log.find("kscope profile: rank 1, pass 2 of 2: the workload, unprofiled"), std::string::npos) << log;
  EXPECT_NE(log.find("pass 1 of 2: every rank runs the workload once; rank 0 under nsys (discovery)"),
            std::string::npos)
      << log;
}

TEST_F(RankWrapper, DryRunRunsNothingOnAnyRank) {
  ASSERT_EQ(Mpirun({"--dry-run"}), 0) << testing::ReadFile((dir_ / "mpirun.log").string());
  EXPECT_TRUE(Passes().empty());
  const std::string log = testing::ReadFile((dir_ / "mpirun.log").string());
  EXPECT_NE(log.find("rank 1 (OMPI_COMM_WORLD_RANK) is not profiled; a run would start the workload 2 times"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("# deep pass"), std::string::npos) << log;
}

// The watchdog end to end: ncu (the stand-in) starts profiling a launch of the all-reduce and
// prints nothing more; kscope stops it after profile.ncu_stall_timeout_s with one line naming
// the launch, and the run is kept, marked incomplete.
TEST_F(RankWrapper, NcuStuckInsideALaunchIsStoppedAndTheRunKept) {
  setenv("KSCOPE_NSYS", (dir_ / "bin" / "nsys").c_str(), 1);
  setenv("KSCOPE_NCU", (dir_ / "bin" / "ncu").c_str(), 1);
  setenv("KSCOPE_STANDIN_DATA", (dir_ / "data").c_str(), 1);
  setenv("KSCOPE_STANDIN_NCU_STALL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1);
  const std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "/usr/bin:/bin";
  setenv("PATH", ((dir_ / "bin").string() + ":" + path).c_str(), 1);
  const std::string log = (dir_ / "kscope.log").string();
  const pid_t pid = testing::StartKscope(
      {"--db", (dir_ / "kscope.db").string(), "profile", "profile.ncu_stall_timeout_s=1", "selection.top=20",
       "selection.warmup=2", "selection.launches=3", "selection.budget_s=0", "ncu.flops=off", "ncu.import=export",
       "profile.runs_dir=" + (dir_ / "runs").string(), "profile.cache_dir=" + (dir_ / "cache").string(), "--", "true"},
      log);
  setenv("PATH", path.c_str(), 1);
  for (const char* v : {"KSCOPE_NSYS", "KSCOPE_NCU", "KSCOPE_STANDIN_DATA", "KSCOPE_STANDIN_NCU_STALL"}) unsetenv(v);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(testing::WaitExit(pid), 1) << testing::ReadFile(log);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60);
  const std::string out = testing::ReadFile(log);
  EXPECT_NE(out.find("kscope: error: ncu: no progress for 1 s while profiling launch 1 "
                     "('ncclDevKernel_AllReduce_Sum_f32_RING_LL'), stopped; it is a communication kernel, whose "
                     "replay on one rank waits for peers that do not replay it"),
            std::string::npos)
      << out;
  auto store = store::Store::Open((dir_ / "kscope.db").string(), sql::OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok());
  auto q = store->db().Prepare("SELECT status, json_extract(capture, '$.steps[2].stalled_at') FROM run");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->Step());
  EXPECT_EQ(q->Text(0), "incomplete");
  EXPECT_EQ(q->Text(1), "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
}

// A launcher stops a job by signalling its processes, here kscope: the workload an unprofiled
// rank runs (in its own process group) stops with it, its own children too.
TEST(RankWrapperSignals, AnUnprofiledRanksWorkloadStopsWithKscope) {
  const fs::path dir = fs::temp_directory_path() / ("kscope_rank_signal_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string pids = (dir / "pids").string();
  setenv("RANK", "1", 1);
  const pid_t kscope = testing::StartKscope(
      {"--db", (dir / "k.db").string(), "profile", "profile.rank=0", "--", KSCOPE_FAKE_WORKLOAD, "tree", pids},
      (dir / "log").string());
  unsetenv("RANK");
  ASSERT_GT(kscope, 0);
  for (int i = 0; i < 500 && !(fs::exists(pids) && fs::file_size(pids) > 0); ++i) usleep(20000);
  std::ifstream in(pids);
  pid_t parent = 0, child = 0;
  in >> parent >> child;
  ASSERT_GT(child, 0) << testing::ReadFile((dir / "log").string());
  kill(kscope, SIGTERM);
  EXPECT_EQ(testing::WaitExit(kscope), 130) << testing::ReadFile((dir / "log").string());
  auto alive = [](pid_t p) { return kill(p, 0) == 0; };
  for (int i = 0; i < 100 && (alive(parent) || alive(child)); ++i) usleep(20000);
  EXPECT_FALSE(alive(parent)) << "the workload outlived kscope";
  EXPECT_FALSE(alive(child)) << "the workload's own child outlived kscope";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kscope
