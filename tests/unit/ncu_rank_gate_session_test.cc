// kscope profile's deep pass through the rank gate (capture/ncu_rank_gate.h), planned from the
// recorded discovery export of tp_infer (torchrun, 2 ranks on two H100s, tests/data/zoo/tp_infer)
// with the GPU machine's recorded tool answers: the pass runs the job's own command with the gate
// in its environment; when no process connected to ncu, the same pass runs again as ncu over the
// whole job, on the profiled rank's GPU, and a note says why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "capture/profile.h"
#include "config/config.h"
#include "recorded_runner.h"
#include "store/store.h"
#include "zoo_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

const std::string kTools = std::string(KSCOPE_TEST_DATA_DIR) + "/capture/llama_h100/";
const std::vector<std::string> kJob{"torchrun", "--nproc_per_node=2", "tp_infer.py"};

class RankGateSession : public ::testing::Test {
 protected:
  // One import of the discovery export for the suite; each test's profile is a run of its own.
  static void SetUpTestSuite() {
    store_ = std::make_unique<store::Store>(std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate).value()));
    discovery_ = testing::ImportZoo(*store_, "tp_infer");
  }
  static void TearDownTestSuite() { store_.reset(); }

  void SetUp() override {
    ASSERT_GT(discovery_, 0);
    capture::ClearInterrupt();
    dir_ = fs::temp_directory_path() / ("kscope_gate_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    runner_.ReplayRecordedProfile(kTools);
    // ncu (over the whole job, once the gate stayed closed) matches nothing here: the session
    // stops there, which is all these tests need of it.
    Write("ncu.out", "==PROF== Connected to process 17 (/usr/bin/python3.12)\n==WARNING== No kernels were profiled.\n");
    runner_.replies["ncu profile"] = testing::Prints((dir_ / "ncu.out").string());
    auto c = config::LoadConfig(
        "", {"profile.runs_dir=" + (dir_ / "runs").string(), "profile.cache_dir=" + (dir_ / "cache").string()});
    ASSERT_TRUE(c.ok());
    config_ = *c;
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }

  // The job's run answers `output`; returns the session's outcome.
  Status Profile(const std::string& output) {
    Write("job.out", output);
    runner_.replies["torchrun profile"] = testing::Prints((dir_ / "job.out").string());
    capture::ProfileSession session(*store_, runner_, {"nsys", "ncu"}, screen_, false);
    capture::ProfileRequest req;
    req.discovery_run = discovery_;
    req.workload = kJob;
    req.config = config_;
    auto r = session.Run(req);
    if (!r.ok()) return r.error();
    run_dir_ = r->run_dir;
    return r->error ? Status(*r->error) : Status::Ok();
  }

  std::vector<std::vector<std::string>> Calls(const std::string& kind) const {
    std::vector<std::vector<std::string>> out;
    for (const auto& [k, argv] : runner_.calls) {
      if (k == kind) out.push_back(argv);
    }
    return out;
  }

  fs::path dir_;
  fs::path run_dir_;
  static std::unique_ptr<store::Store> store_;
  static int64_t discovery_;
  testing::RecordedRunner runner_;
  config::Config config_;
  std::ostringstream screen_;
};

std::unique_ptr<store::Store> RankGateSession::store_;
int64_t RankGateSession::discovery_ = -1;

bool Has(const std::vector<std::string>& argv, const std::string& a, const std::string& b) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == a && argv[i + 1] == b) return true;
  }
  return false;
}

TEST_F(RankGateSession, AnOpenedGateIsTheOnlyRunOfThePass) {
  const Status s = Profile(
      "==PROF== Connected to process 1728 (/usr/bin/python3.12)\n"
      "==WARNING== No kernels were profiled.\n");
  EXPECT_FALSE(s.ok()) << screen_.str();  // ncu in rank 0 matched nothing: that is reported as before
  const auto jobs = Calls("torchrun profile");
  ASSERT_EQ(jobs.size(), 1U);
  EXPECT_EQ(jobs.front(), kJob);  // the job's own command, not ncu's
  EXPECT_TRUE(Calls("ncu profile").empty());
  // The gate's module and the pass's ncu command are in the run directory; ncu gets no --devices.
  const auto gate = run_dir_ / "ncu" / "rank_gate";
  EXPECT_TRUE(fs::exists(gate / "sitecustomize.py"));
  const std::string argv = testing::ReadFile((gate / "pass1.ncu-argv").string());
  EXPECT_EQ(argv.find(std::string("--devices") + '\0'), std::string::npos);
  EXPECT_NE(argv.find(std::string("--kernel-name") + '\0'), std::string::npos);
  EXPECT_EQ(screen_.str().find("no process of the job executed itself under ncu"), std::string::npos);
}

TEST_F(RankGateSession, AClosedGateRunsThePassOverTheWholeJob) {
  const Status s = Profile("ok tp_infer.py rank 0 of 2\nok tp_infer.py rank 1 of 2\n");
  EXPECT_FALSE(s.ok());
  ASSERT_EQ(Calls("torchrun profile").size(), 1U);
  const auto ncu = Calls("ncu profile");
  ASSERT_EQ(ncu.size(), 1U);
  // ncu over the job, on rank 0's GPU as the discovery export has it (device 0).
  EXPECT_TRUE(Has(ncu.front(), "--target-processes", "all"));
  EXPECT_TRUE(Has(ncu.front(), "--devices", "0"));
  EXPECT_EQ(std::vector<std::string>(ncu.front().end() - 3, ncu.front().end()), kJob);
  EXPECT_NE(screen_.str().find("ncu run 1: no process of the job executed itself under ncu as rank 0"),
            std::string::npos)
      << screen_.str();
}

// A dry run prints each pass as the gate runs it: the ncu command the rank runs itself under,
// without --devices, then the job's own command; the single kernels' commands keep the GPU.
TEST_F(RankGateSession, ADryRunPrintsTheGatesNcuWithoutTheRanksGpu) {
  capture::ProfileSession session(*store_, runner_, {"nsys", "ncu"}, screen_, false);
  capture::ProfileRequest req;
  req.discovery_run = discovery_;
  req.workload = kJob;
  req.config = config_;
  req.dry_run = true;
  ASSERT_TRUE(session.Run(req).ok());
  EXPECT_TRUE(runner_.calls.empty());
  std::istringstream lines(screen_.str());
  std::string line;
  int gated = 0, alone = 0;
  bool after_gate = false, kernels_alone = false;
  while (std::getline(lines, line)) {
    if (after_gate) {
      EXPECT_TRUE(line.starts_with("ncu ")) << line;
      EXPECT_EQ(line.find(" --devices "), std::string::npos) << line;
      EXPECT_NE(line.find(" '<rank 0>'"), std::string::npos) << line;
      ++gated;
    }
    after_gate = line.find("executes itself again under this ncu") != std::string::npos;
    if (kernels_alone && line.starts_with("ncu ")) {
      EXPECT_NE(line.find(" --devices 0 "), std::string::npos) << line;
      ++alone;
    }
    kernels_alone = kernels_alone || line == "# each kernel alone";
  }
  EXPECT_GT(gated, 0) << screen_.str();
  EXPECT_GT(alone, 0) << screen_.str();
}

TEST_F(RankGateSession, TheGateCanBeTurnedOff) {
  auto c = config::LoadConfig("", {"profile.runs_dir=" + (dir_ / "runs").string(),
                                   "profile.cache_dir=" + (dir_ / "cache").string(), "profile.ncu_rank_gate=off"});
  ASSERT_TRUE(c.ok());
  config_ = *c;
  EXPECT_FALSE(Profile("").ok());
  EXPECT_TRUE(Calls("torchrun profile").empty());
  EXPECT_EQ(Calls("ncu profile").size(), 1U);
}

}  // namespace
}  // namespace kscope
