// The rank gate (capture/ncu_rank_gate.h), run for real: a Python launcher started the way kscope
// starts one (SystemRunner) spawns ranks as torchrun does, each with RANK in its environment.
// The gate's module must make the profiled rank alone execute itself again under the "ncu" it
// was given (here /usr/bin/env, which marks the environment and runs the rank's command: ncu
// itself needs a GPU), leave the launcher and the other ranks as they are, ignore the rank
// variables kscope's own environment passes down, and still run the job's own sitecustomize.
#include "capture/ncu_rank_gate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "capture/selection.h"
#include "test_support.h"
#include "tools/process.h"
#include "tools/tool_output.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A launcher in the manner of torchrun: two ranks of worker.py, RANK set for each, waited for.
constexpr const char* kLauncher = R"(import os, subprocess, sys
print("launcher", os.environ.get("UNDER_NCU", "-"), flush=True)
procs = [subprocess.Popen([sys.executable, "-u", sys.argv[1], "arg one"], env=dict(os.environ, RANK=str(r)))
         for r in range(2)]
sys.exit(max(p.wait() for p in procs))
)";

constexpr const char* kWorker = R"(import os, sys
print(f"rank {os.environ['RANK']} under_ncu={os.environ.get('UNDER_NCU', '-')} args={sys.argv[1:]} "
      f"gate_left={any(k.startswith('KSCOPE_NCU_GATE_') for k in os.environ)}", flush=True)
)";

class RankGate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / "rank_gate_test";
    fs::remove_all(dir_);
    Write(dir_ / "launcher.py", kLauncher);
    Write(dir_ / "worker.py", kWorker);
    Write(dir_ / "user" / "sitecustomize.py", "print('user sitecustomize', flush=True)\n");
  }

  // Runs the launcher with the gate for `rank` in its environment, on top of `job_env`;
  // `kscope_env` stands for kscope's own environment. Returns the output lines, sorted.
  std::vector<std::string> RunJob(int64_t rank, const std::map<std::string, std::string>& kscope_env,
                                  const std::map<std::string, std::string>& job_env) {
    auto env = capture::WriteRankGate(dir_ / "gate", "pass1", {"/usr/bin/env", "UNDER_NCU=yes"}, rank, kscope_env,
                                      (dir_ / "user").string());
    EXPECT_TRUE(env.ok());
    capture::ProcessSpec spec;
    spec.argv = {"python3", (dir_ / "launcher.py").string(), (dir_ / "worker.py").string()};
    spec.env = job_env;
    for (const auto& [k, v] : *env) spec.env[k] = v;
    spec.log_path = (dir_ / "job.log").string();
    fs::remove(spec.log_path);
    capture::SystemRunner runner;
    auto run = runner.Run(spec);
    EXPECT_TRUE(run.ok() && run->ok()) << testing::ReadFile(spec.log_path);
    std::vector<std::string> lines;
    std::ifstream in(spec.log_path);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  fs::path dir_;
};

TEST_F(RankGate, OnlyTheProfiledRankRunsUnderNcuWithItsOwnArguments) {
  // The launcher has RANK=0 too (as under an outer launcher that kscope did not see set): it is
  // kscope's child, so the gate leaves it alone.
  const auto lines = RunJob(0, {}, {{"RANK", "0"}});
  const std::vector<std::string> want = {
      "launcher -",
      "rank 0 under_ncu=yes args=['arg one'] gate_left=False",
      "rank 1 under_ncu=- args=['arg one'] gate_left=True",
      // The job's own module runs once in the launcher and in each rank (rank 0 in its run under
      // "ncu": the gate executed it again before it got to the job's module).
      "user sitecustomize",
      "user sitecustomize",
      "user sitecustomize",
  };
  EXPECT_EQ(lines, want);
}

TEST_F(RankGate, RankVariablesKscopeItselfHadAreNotTheRanks) {
  // kscope ran inside a Slurm step (SLURM_PROCID=0), which every process of the job inherits;
  // the ranks' own variable is RANK, so rank 0 alone is gated, not every process.
  const auto lines = RunJob(0, {{"SLURM_PROCID", "0"}}, {{"SLURM_PROCID", "0"}});
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "rank 0 under_ncu=yes args=['arg one'] gate_left=False"), 1);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "rank 1 under_ncu=- args=['arg one'] gate_left=True"), 1);
}

TEST_F(RankGate, ARankNoProcessHasLeavesTheGateClosed) {
  const auto lines = RunJob(5, {}, {});
  for (const auto& l : lines) EXPECT_EQ(l.find("under_ncu=yes"), std::string::npos) << l;
  EXPECT_EQ(lines.size(), 6U);  // the launcher, two ranks, three runs of the job's module
}

TEST(RankGateUse, NcuSaysWhetherTheGateOpened) {
  // What the profiled rank's ncu prints as it starts (the GPU machine's Nsight Compute 2025.3.1,
  // docs/gpu/issue21_hang/exp3): the deep pass counts these to tell an opened gate from a closed one.
  capture::NcuOutput out;
  out.Feed("==PROF== Connected to process 5869 (/usr/bin/python3.12)");
  out.Feed("ok fsdp_train.py 10 steps rank 0 of 2 loss 8.344");
  out.Feed("==PROF== Disconnected from process 5869");
  EXPECT_EQ(out.connected, 1);
}

TEST(RankGateUse, OnlyJobsOfSeveralRanksUnderKernelReplayWithoutTheCommunicator) {
  capture::Selection sel;
  sel.ranks = 2;
  EXPECT_TRUE(capture::UsesRankGate(sel, "kernel", "on"));
  EXPECT_FALSE(capture::UsesRankGate(sel, "kernel", "off"));
  EXPECT_FALSE(capture::UsesRankGate(sel, "application", "on"));  // every rank reruns under ncu
  sel.communicator_peers = 2;
  EXPECT_FALSE(capture::UsesRankGate(sel, "kernel", "on"));  // ncu keeps every rank in step
  sel.communicator_peers = 0;
  sel.ranks = 1;
  EXPECT_FALSE(capture::UsesRankGate(sel, "kernel", "on"));
}

}  // namespace
}  // namespace kscope
