// The process runner on real processes: output, exit codes, signals, time limits, the whole
// process tree stopped, interruption, environment, and no shell anywhere.
#include "tools/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"
#include "tools/tool_output.h"

namespace kscope::capture {
namespace {

namespace fs = std::filesystem;

const std::string kFake = KSCOPE_FAKE_WORKLOAD;

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kscope_process_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    ClearInterrupt();
  }
  void TearDown() override {
    ClearInterrupt();
    fs::remove_all(dir_);
  }
  ProcessSpec Spec(std::vector<std::string> argv) {
    ProcessSpec s;
    s.argv = std::move(argv);
    s.log_path = (dir_ / "log").string();
    s.on_line = [this](std::string_view l) { lines_.emplace_back(l); };
    return s;
  }
  fs::path dir_;
  std::vector<std::string> lines_;
  SystemRunner runner_;
};

TEST_F(ProcessTest, OutputReachesTheLogAndTheLineCallback) {
  auto out = runner_.Run(Spec({kFake, "lines", "3"}));
  ASSERT_TRUE(out.ok()) << out.error().Line();
  EXPECT_TRUE(out->ok());
  EXPECT_EQ(out->exit_code, 0);
  EXPECT_EQ(lines_, (std::vector<std::string>{"line 0", "line 1", "line 2", "to stderr"}));
  EXPECT_EQ(testing::ReadFile((dir_ / "log").string()), "line 0\nline 1\nline 2\nto stderr\n");
}

TEST_F(ProcessTest, CarriageReturnsEndProgressLines) {
  auto out = runner_.Run(Spec({kFake, "cr"}));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(lines_, (std::vector<std::string>{"[1/1] [0%   ]", "[1/1] [50%  ]", "[1/1] [100%]",
                                              "Generated:", "    /tmp/x.nsys-rep"}));
}

TEST_F(ProcessTest, ExitCodeAndSignalAreReported) {
  auto failed = runner_.Run(Spec({kFake, "exit", "3"}));
  ASSERT_TRUE(failed.ok());
  EXPECT_FALSE(failed->ok());
  EXPECT_EQ(failed->exit_code, 3);
  EXPECT_EQ(failed->Describe(), "exit 3");
  auto crashed = runner_.Run(Spec({kFake, "crash"}));
  ASSERT_TRUE(crashed.ok());
  EXPECT_EQ(crashed->signal, SIGSEGV);
  EXPECT_EQ(crashed->exit_code, -1);
  EXPECT_EQ(crashed->Describe(), "killed by signal 11 (Segmentation fault)");
}

TEST_F(ProcessTest, AProgramThatCannotStartIsAnError) {
  auto out = runner_.Run(Spec({"/nonexistent/kscope-no-such-program"}));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().Line(),
            "kscope: error: /nonexistent/kscope-no-such-program: cannot start: No such file or directory; check that "
            "it is installed and on PATH, or give its full path");
}

TEST_F(ProcessTest, ArgumentsReachTheProgramUntouchedWithoutAShell) {
  // Shell metacharacters are plain bytes of one argument.
  auto out = runner_.Run(Spec({kFake, "env", "A;B $(rm -rf /) `x` 'q'"}));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(lines_, (std::vector<std::string>{"(unset)"}));
}

TEST_F(ProcessTest, EnvironmentIsAddedOnTop) {
  auto spec = Spec({kFake, "env", "KSCOPE_TEST_VAR"});
  spec.env["KSCOPE_TEST_VAR"] = "set by kscope";
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(lines_, (std::vector<std::string>{"set by kscope"}));
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

TEST_F(ProcessTest, TimeLimitStopsTheWholeTree) {
  const std::string pids = (dir_ / "pids").string();
  auto spec = Spec({kFake, "tree", pids});
  spec.timeout_s = 0.5;
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->timed_out);
  EXPECT_FALSE(out->ok());
  EXPECT_LT(out->seconds, 10);
  std::ifstream in(pids);
  pid_t parent = 0, child = 0;
  in >> parent >> child;
  ASSERT_GT(child, 0);
  for (int i = 0; i < 100 && Alive(child); ++i) usleep(20000);
  EXPECT_FALSE(Alive(child)) << "the workload's own child outlived the stop";
}

TEST_F(ProcessTest, StubbornProgramIsKilledAfterTheGrace) {
  auto spec = Spec({kFake, "stubborn"});
  spec.timeout_s = 0.3;
  spec.kill_grace_s = 0.3;
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->timed_out);
  EXPECT_EQ(out->signal, SIGKILL);
  EXPECT_LT(out->seconds, 10);
}

TEST_F(ProcessTest, InterruptionStopsTheProgramAndIsReported) {
  auto spec = Spec({kFake, "stubborn"});
  spec.kill_grace_s = 0.2;
  spec.on_line = [](std::string_view) { RequestInterrupt(); };  // interrupted once it runs
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->interrupted);
  EXPECT_FALSE(out->timed_out);
  EXPECT_EQ(out->Describe(), "stopped because kscope was interrupted");
}

TEST_F(ProcessTest, AProgramStartedAfterAnInterruptionRunsUntilTheNextOne) {
  RequestInterrupt();  // Ctrl-C during an earlier step
  auto after = runner_.Run(Spec({kFake, "lines", "2"}));
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->ok());  // e.g. the export of what ncu gathered
  auto spec = Spec({kFake, "stubborn"});
  spec.kill_grace_s = 0.2;
  spec.on_line = [](std::string_view) { RequestInterrupt(); };  // a second Ctrl-C
  auto stopped = runner_.Run(spec);
  ASSERT_TRUE(stopped.ok());
  EXPECT_TRUE(stopped->interrupted);
  EXPECT_EQ(InterruptCount(), 2);
}

TEST_F(ProcessTest, RealSigintToKscopeIsAnInterruption) {
  InstallInterruptHandlers();
  auto spec = Spec({kFake, "stubborn"});
  spec.kill_grace_s = 0.2;
  spec.on_line = [](std::string_view) { raise(SIGINT); };  // as Ctrl-C would, to kscope itself
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->interrupted);
  signal(SIGINT, SIG_DFL);
}

TEST_F(ProcessTest, StdoutToItsOwnFile) {
  auto spec = Spec({kFake, "lines", "2"});
  spec.stdout_path = (dir_ / "out").string();
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(testing::ReadFile(spec.stdout_path), "line 0\nline 1\n");
  EXPECT_EQ(testing::ReadFile((dir_ / "log").string()), "to stderr\n");
}

TEST_F(ProcessTest, StdoutOfAFailedProgramLeavesThePreviousFile) {
  std::ofstream(dir_ / "out") << "previous";
  auto spec = Spec({kFake, "exit", "3"});
  spec.stdout_path = (dir_ / "out").string();
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->exit_code, 3);
  EXPECT_EQ(testing::ReadFile(spec.stdout_path), "previous");
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) files += e.path().filename() != "log" ? 1 : 0;
  EXPECT_EQ(files, 1u);  // no temporary file left
}

TEST_F(ProcessTest, StallWatchdogStopsAProgramStuckInsideALaunch) {
  // The program prints ncu's progress for one launch, starts a second and goes silent: the
  // watchdog stops it after stall_timeout_s, well before its time limit, and names the launch.
  NcuOutput ncu;
  auto spec = Spec({kFake, "stall", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"});
  spec.on_line = [&](std::string_view l) { ncu.Feed(l); };
  spec.busy = [&](std::string_view partial) { return ncu.Busy(partial); };
  spec.stall_timeout_s = 1;
  spec.timeout_s = 30;
  spec.kill_grace_s = 1;
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok()) << out.error().Line();
  EXPECT_TRUE(out->stalled);
  EXPECT_TRUE(out->timed_out);
  EXPECT_FALSE(out->ok());
  EXPECT_EQ(out->Describe(), "stopped: no progress");
  EXPECT_LT(out->seconds, 10);
  EXPECT_EQ(ncu.profiled, 1);
  EXPECT_EQ(ncu.stuck_kernel, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
}

TEST_F(ProcessTest, StallWatchdogLeavesASilentProgramOutsideALaunchToTheTimeLimit) {
  // Silence between launches is the workload's own time (a compilation can take minutes).
  NcuOutput ncu;
  auto spec = Spec({kFake, "stubborn"});
  spec.on_line = [&](std::string_view l) { ncu.Feed(l); };
  spec.busy = [&](std::string_view partial) { return ncu.Busy(partial); };
  spec.stall_timeout_s = 0.5;
  spec.timeout_s = 2;
  spec.kill_grace_s = 0.5;
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->timed_out);
  EXPECT_FALSE(out->stalled);
  EXPECT_EQ(out->Describe(), "stopped at its time limit");
}

TEST_F(ProcessTest, InheritedOutputIsNotCaptured) {
  auto spec = Spec({kFake, "lines", "2"});
  spec.inherit_output = true;
  auto out = runner_.Run(spec);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->ok());
  EXPECT_TRUE(lines_.empty());
  EXPECT_FALSE(fs::exists(dir_ / "log") && fs::file_size(dir_ / "log") > 0);
}

}  // namespace
}  // namespace kscope::capture
