// The replay of communication kernels across ranks (capture/ncu_communicator.h): kscope asks
// the installed ncu whether it has the multi-process communicator, and only then replays them
// with kernel replay and --communicator shmem; otherwise application replay stays. The ncu
// --help texts are what the GPU machine's Nsight Compute printed (docs/gpu/issue21_multirank.sh).
#include "capture/ncu_communicator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "capture/commands.h"
#include "config/config.h"
#include "test_support.h"

namespace kscope {
namespace {

TEST(NcuCommunicator, TheArgvKeepsTheRanksInStepOnlyWhenAsked) {
  capture::Selection sel;
  sel.filter_mode = "per-launch-config";
  sel.launches = 1;
  sel.device = 0;
  const config::NcuConfig c;
  capture::NcuPass pass;
  pass.filter = "regex:^(a)$";
  auto plain = capture::NcuProfileArgv("ncu", c, sel, pass, {}, "out", {"torchrun", "x.py"});
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "--communicator"), plain.end());
  sel.communicator_peers = 2;
  sel.replay = "kernel";
  auto argv = capture::NcuProfileArgv("ncu", c, sel, pass, {}, "out", {"torchrun", "x.py"});
  auto at = std::find(argv.begin(), argv.end(), "--communicator");
  ASSERT_NE(at, argv.end());
  ASSERT_LT(at + 3, argv.end());
  EXPECT_EQ(*(at + 1), "shmem");
  EXPECT_EQ(*(at + 2), "--communicator-shmem-num-peers");
  EXPECT_EQ(*(at + 3), "2");
  auto replay = std::find(argv.begin(), argv.end(), "--replay-mode");
  ASSERT_NE(replay, argv.end());
  EXPECT_EQ(*(replay + 1), "kernel");
}

// `ncu --help` answered with a given text.
class HelpRunner : public capture::ProcessRunner {
 public:
  explicit HelpRunner(std::string help) : help_(std::move(help)) {}
  Result<capture::ProcessOutcome> Run(const capture::ProcessSpec& spec) override {
    argv = spec.argv;
    std::ofstream(spec.stdout_path) << help_;
    capture::ProcessOutcome out;
    out.exit_code = 0;
    return out;
  }
  std::vector<std::string> argv;

 private:
  std::string help_;
};

capture::Selection CommunicationSelection() {
  capture::Selection sel;
  sel.communication = true;
  sel.replay = "application";
  sel.ranks = 2;
  return sel;
}

TEST(NcuCommunicator, TheGpuMachinesNcuHasNoCommunicatorSoApplicationReplayStays) {
  const std::string help = testing::ReadFile(std::string(KSCOPE_TEST_DATA_DIR) + "/capture/ncu_help_2025.3.1.txt");
  ASSERT_NE(help.find("--replay-mode"), std::string::npos);
  EXPECT_FALSE(capture::HelpHasShmemCommunicator(help));
  HelpRunner runner(help);
  auto sel = CommunicationSelection();
  capture::ChooseCommunicationReplay(runner, "ncu", ::testing::TempDir(), sel);
  EXPECT_EQ(runner.argv, (std::vector<std::string>{"ncu", "--help"}));
  EXPECT_EQ(sel.replay, "application");
  EXPECT_EQ(sel.communicator_peers, 0);
  ASSERT_FALSE(sel.notes.empty());
  EXPECT_NE(sel.notes.back().find("no multi-process communicator"), std::string::npos);
}

TEST(NcuCommunicator, AnNcuWithTheCommunicatorKeepsTheRanksInStep) {
  HelpRunner runner("  --communicator arg\n  --communicator-shmem-num-peers arg   peers\n");
  auto sel = CommunicationSelection();
  capture::ChooseCommunicationReplay(runner, "ncu", ::testing::TempDir(), sel);
  EXPECT_EQ(sel.replay, "kernel");
  EXPECT_EQ(sel.communicator_peers, 2);
  // One process, or no communication kernel selected: ncu is not even asked.
  HelpRunner unasked("--communicator-shmem-num-peers");
  auto one = CommunicationSelection();
  one.ranks = 1;
  capture::ChooseCommunicationReplay(unasked, "ncu", ::testing::TempDir(), one);
  EXPECT_TRUE(unasked.argv.empty());
  EXPECT_EQ(one.replay, "application");
}

}  // namespace
}  // namespace kscope
