// kscope profile replayed on recorded real outputs: nsys, ncu and nvidia-smi as they ran for the
// Llama workload on an H100 (tests/data/capture/llama_h100/, recorded by
// docs/gpu/issue4_profile.sh), through the same orchestration, import, selection and linking
// code. The fixture of profile_replay_test.cc (the profile) and run_dir_replay_test.cc (its run
// directories imported elsewhere).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "capture/profile.h"
#include "config/config.h"
#include "recorded_runner.h"
#include "store/store.h"
#include "tools/process.h"

namespace kscope::testing {

inline const std::string kRun = std::string(KSCOPE_TEST_DATA_DIR) + "/capture/llama_h100/";
inline const std::string kRec = std::string(KSCOPE_TEST_DATA_DIR) + "/capture/recorded/";
inline const std::vector<std::string> kWorkload{"python3", "llama_workload.py", "4", "2", "128", "16"};

class ProfileReplay : public ::testing::Test {
 protected:
  void SetUp() override {
    capture::ClearInterrupt();
    dir_ = std::filesystem::temp_directory_path() / ("kscope_replay_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok());
    store_ = std::make_unique<store::Store>(std::move(s).value());
    runner_.ReplayRecordedProfile(kRun);
    // The settings the recorded run was made with (the defaults then, before growing shapes were
    // sampled): its ncu output is what
    // ncu printed for this plan; its report is read from the pages ncu exported.
    auto c = config::LoadConfig(
        "", {"profile.runs_dir=" + (dir_ / "runs").string(), "profile.cache_dir=" + (dir_ / "cache").string(),
             "selection.top=20", "selection.warmup=2", "selection.launches=3", "selection.budget_s=0",
             "selection.growing_samples=0", "ncu.flops=off", "ncu.import=export"});
    ASSERT_TRUE(c.ok());
    config_ = *c;
  }
  void TearDown() override {
    capture::ClearInterrupt();
    std::filesystem::remove_all(dir_);
  }
  Result<capture::ProfileResult> Profile(int64_t discovery = 0) {
    capture::ProfileSession session(*store_, runner_, {"nsys", "ncu"}, screen_, false);
    capture::ProfileRequest req;
    req.discovery_run = discovery;
    req.workload = kWorkload;
    req.config = config_;
    req.manifest.label = "llama-quick";
    return session.Run(req);
  }
  int64_t Count(const std::string& sql) {
    auto q = store_->db().Prepare(sql);
    EXPECT_TRUE(q.ok());
    return q->Step() ? q->Int(0) : -1;
  }
  std::filesystem::path dir_;
  std::unique_ptr<store::Store> store_;
  RecordedRunner runner_;
  config::Config config_;
  std::ostringstream screen_;
};

}  // namespace kscope::testing
