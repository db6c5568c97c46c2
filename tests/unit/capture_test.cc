// kscope profile's parts that need no GPU (config_test.cc tests its configuration): selection
// on the devset's real Llama export (checked against SQL on the export itself), the exact
// ncu/nsys command lines, and reading what real nsys/ncu printed (recorded on the GPU
// machine, tests/data/capture/recorded/).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "capture/commands.h"
#include "capture/preflight.h"
#include "capture/selection.h"
#include "config/config.h"
#include "import/import_files.h"
#include "llama_store_fixture.h"
#include "store/event_reader.h"
#include "store/event_streams.h"
#include "test_support.h"
#include "tools/rank.h"
#include "tools/tool_output.h"
#include "tools/tools.h"
#include "util/closest.h"
#include "util/sqlite.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
const std::string kRecorded = std::string(KSCOPE_TEST_DATA_DIR) + "/capture/recorded/";

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

// ---- small helpers ----

TEST(Tools, VersionsFromRealOutputs) {
  EXPECT_EQ(capture::ParseToolVersion(testing::ReadFile(kRecorded + "nsys_version.out")), "2025.3.1.0");
  std::optional<std::string> ncu;
  for (const auto& l : Lines(kRecorded + "ncu_version.out")) {
    if (!ncu) ncu = capture::ParseToolVersion(l);
  }
  EXPECT_EQ(ncu, "2025.3.1.0");
  EXPECT_EQ(capture::ParseToolVersion("Copyright (c) 2018-2025 NVIDIA Corporation"), std::nullopt);
  EXPECT_LT(capture::CompareVersions("2025.9", "2025.10"), 0);
  EXPECT_EQ(capture::CompareVersions("2023.1", "2023.1.0.0"), 0);
  EXPECT_GT(capture::CompareVersions("2025.3.1.0", capture::kMinNcuVersion), 0);
}

TEST(Tools, ClosestNames) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3U);
  EXPECT_EQ(Closest("decod", {"prefill", "decode", "step"}, 2), (std::vector<std::string>{"decode", "step"}));
  EXPECT_EQ(Closest("gemm", {"sgemm_128", "saxpy"}, 1), (std::vector<std::string>{"sgemm_128"}));
  EXPECT_EQ(Closest("splitk", {"silu_kernel", "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_splitK_TNT"}, 1),
            (std::vector<std::string>{"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_splitK_TNT"}));
}

// The Python whose torch the manifest records, however the workload is launched.
TEST(Preflight, WorkloadPythonFollowsLaunchers) {
  EXPECT_EQ(capture::WorkloadPython({"python3", "app.py"}), "python3");
  EXPECT_EQ(capture::WorkloadPython({"/opt/venv/bin/python3.11", "-m", "app"}), "/opt/venv/bin/python3.11");
  const fs::path dir = fs::temp_directory_path() / ("kscope_launcher_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "torchrun") << "#!/opt/venv/bin/python3.12\n# -*- coding: utf-8 -*-\nimport sys\n";
  std::ofstream(dir / "train.sh") << "#!/bin/bash\npython train.py \"$@\"\n";
  std::ofstream(dir / "env_launcher") << "#!/usr/bin/env python3\n";
  EXPECT_EQ(capture::WorkloadPython({(dir / "torchrun").string(), "--nproc-per-node=8", "train.py"}),
            "/opt/venv/bin/python3.12");
  EXPECT_EQ(capture::WorkloadPython({(dir / "env_launcher").string()}), "python3");
  EXPECT_EQ(capture::WorkloadPython({(dir / "train.sh").string()}), "python3");  // a shell script: PATH's
  EXPECT_EQ(capture::WorkloadPython({"no-such-launcher-anywhere", "x"}), "python3");
  fs::remove_all(dir);
}

// nvidia-smi's nine fields as the H100 printed them (docs/gpu/issue11_zoo.sh), and the five an
// older driver knows.
TEST(Preflight, GpuLineAsNvidiaSmiPrintsIt) {
  const std::string line = testing::ReadFile(std::string(KSCOPE_TEST_DATA_DIR) + "/capture/nvidia_smi_query_h100.txt");
  const auto g = capture::ParseGpuLine(line.substr(0, line.find('\n')));
  ASSERT_TRUE(g);
  EXPECT_EQ(capture::ToJson(*g), nlohmann::json::parse(R"({"name": "NVIDIA H100 80GB HBM3", "driver": "580.159.04",
      "sm_clock_mhz": 345.0, "sm_max_clock_mhz": 1980.0, "mem_clock_mhz": 2619.0, "compute_cap": "9.0",
      "sm_arch": "sm_90", "power_limit_w": 700.0, "power_max_limit_w": 700.0, "persistence_mode": "Enabled"})"));
  const auto old = capture::ParseGpuLine("NVIDIA H100 80GB HBM3, 580.159.04, 345 MHz, 1980 MHz, 2619 MHz");
  ASSERT_TRUE(old);
  EXPECT_EQ(capture::ToJson(*old).dump(),
            R"({"driver":"580.159.04","mem_clock_mhz":2619.0,"name":"NVIDIA H100 80GB HBM3","sm_clock_mhz":345.0,)"
            R"("sm_max_clock_mhz":1980.0})");
}

TEST(Rank, FromLauncherVariables) {
  EXPECT_EQ(capture::RankFromEnvironment({{"OMPI_COMM_WORLD_RANK", "3"}, {"RANK", "1"}})->rank, 3);
  EXPECT_EQ(capture::RankFromEnvironment({{"SLURM_PROCID", "2"}})->source, "SLURM_PROCID");
  EXPECT_EQ(capture::RankFromEnvironment({{"RANK", "0"}})->rank, 0);
  EXPECT_FALSE(capture::RankFromEnvironment({{"RANK", "x"}}).has_value());
  EXPECT_FALSE(capture::RankFromEnvironment({}).has_value());
}

TEST(Rank, EachPassHasItsOwnRendezvous) {
  // torchrun's workers: the agent's store serves pass 1; from pass 2 on, rank 0's workload hosts
  // a store of its own on the next port, so no pass reads the keys of the one before.
  const std::map<std::string, std::string> torchrun{{"MASTER_PORT", "29500"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"}};
  EXPECT_EQ(capture::PassEnvironment(torchrun, 0), (std::map<std::string, std::string>{{"KSCOPE_PASS", "0"}}));
  EXPECT_EQ(capture::PassEnvironment(torchrun, 2),
            (std::map<std::string, std::string>{
                {"KSCOPE_PASS", "2"}, {"MASTER_PORT", "29502"}, {"TORCHELASTIC_USE_AGENT_STORE", "False"}}));
  EXPECT_EQ(capture::PassEnvironment({{"MASTER_PORT", "x"}}, 1),
            (std::map<std::string, std::string>{{"KSCOPE_PASS", "1"}}));
  EXPECT_EQ(capture::WrapperPasses(1, false), 2);
  EXPECT_EQ(capture::WrapperPasses(3, true), 3);
  EXPECT_EQ(capture::DescribePasses(2, 0, false),
            "pass 1 of 2: every rank runs the workload once; rank 0 under nsys (discovery)\n"
            "pass 2 of 2: every rank runs the workload once; rank 0 under ncu (ncu run 1 of 1; unprofiled if its plan "
            "needs fewer)\n");
}

TEST(ToolOutput, NcuLaunchCutByOtherOutputIsStillUnderWay) {
  // Several ranks share ncu's output: a rank's line can cut the Profiling line of another.
  capture::NcuOutput out;
  EXPECT_TRUE(out.Feed("==PROF== Profiling \"nvjet_sm90_tst_64x8\" - 0: 0%....50%....100% - 11 passes"));
  EXPECT_FALSE(out.Busy(""));
  EXPECT_TRUE(out.Busy("==PROF== Profiling \"ncclDevKernel_AllReduce_Sum_f32_RING_LL\" - 1: 0%..."));
  EXPECT_EQ(out.stuck_kernel, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  EXPECT_FALSE(out.Feed("==PROF== Profiling \"elementwise_kernel\" - 2: 0%....50%step 3 loss 9.1"));
  EXPECT_TRUE(out.Busy("rank 1 waiting"));
  EXPECT_EQ(out.stuck_kernel, "elementwise_kernel");
  EXPECT_TRUE(out.Feed("....100% - 11 passes"));
  EXPECT_FALSE(out.Busy(""));
  EXPECT_EQ(out.profiled, 2);
}

// ---- what real nsys and ncu printed ----

TEST(ToolOutput, NcuProgressAndReport) {
  capture::NcuOutput out;
  int progress = 0;
  for (const auto& l : Lines(kRecorded + "ncu_union.out")) progress += out.Feed(l) ? 1 : 0;
  EXPECT_EQ(progress, 9);
  EXPECT_EQ(out.profiled, 9);
  EXPECT_EQ(out.last_passes, 11);
  EXPECT_EQ(out.last_kernel, "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT");
  EXPECT_EQ(out.report, "/tmp/rec/union.ncu-rep");
  EXPECT_FALSE(out.no_kernels);
  EXPECT_TRUE(out.errors.empty());
}

TEST(ToolOutput, NcuNoKernelMatchedListsWhatItSaw) {
  capture::NcuOutput out;
  for (const auto& l : Lines(kRecorded + "ncu_nokernel.out")) out.Feed(l);
  EXPECT_TRUE(out.no_kernels);
  EXPECT_EQ(out.profiled, 0);
  ASSERT_EQ(out.available_kernels.size(), 43U);  // ncu's numbered list, 1. to 43.
  EXPECT_EQ(out.available_kernels.front(),
            "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c108BFloat16ENS0_9ArgMaxOpsIfEEjlLi4ELi4EEEEEvT1_");
  capture::NcuOutput nvtx;
  for (const auto& l : Lines(kRecorded + "ncu_nonvtx.out")) nvtx.Feed(l);
  EXPECT_TRUE(nvtx.no_kernels);
  EXPECT_TRUE(nvtx.nvtx_push_pop_hint);
  capture::NcuOutput fail;
  for (const auto& l : Lines(kRecorded + "ncu_fail.out")) fail.Feed(l);
  EXPECT_EQ(fail.app_exit_code, 3);
}

TEST(ToolOutput, NsysReportsAndTheMissingImporter) {
  capture::NsysOutput ok;
  std::istringstream text(testing::ReadFile(kRecorded + "nsys_disc.out"));
  std::string line;
  while (std::getline(text, line, '\n')) {
    std::istringstream parts(line);
    std::string part;
    while (std::getline(parts, part, '\r')) ok.Feed(part);
  }
  EXPECT_EQ(ok.generated, std::vector<std::string>{"/tmp/rec/disc.nsys-rep"});
  EXPECT_FALSE(ok.importer_failed);
  capture::NsysOutput nolibs;
  for (const auto& f : {"nsys_nolibs.out", "nsys_nolibs.err"}) {
    for (const auto& l : Lines(kRecorded + f)) nolibs.Feed(l);
  }
  EXPECT_TRUE(nolibs.importer_failed);
  EXPECT_EQ(nolibs.generated, std::vector<std::string>{"/tmp/rec/nolibs.qdstrm"});
  capture::NsysOutput capture_range;
  for (const auto& l : Lines(kRecorded + "nsys_capture.out")) capture_range.Feed(l);
  EXPECT_TRUE(capture_range.no_reports);
  EXPECT_TRUE(capture_range.generated.empty());
}

// ---- selection on the devset's Llama export ----

class SelectionTest : public testing::LlamaStore {};

// The same selection computed by SQL on the export itself: kernels whose launching call lies
// in the decode range, by mangled name; per launch configuration the 3rd to 5th launch.
TEST_F(SelectionTest, DecodeStageAgreesWithSqlOnTheExport) {
  config::SelectionConfig cfg;
  cfg.stage = "decode";
  cfg.top = 20;
  cfg.warmup = 2;
  cfg.launches = 3;
  auto sel = capture::SelectKernels(*store_, run_, cfg, 0, 1);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  EXPECT_EQ(sel->nvtx_include, "decode/");  // a push/pop range: ncu needs the trailing '/'
  auto db = sql::Db::Open(testing::NsysData("llama.sqlite"), sql::OpenMode::kReadOnly);
  ASSERT_TRUE(db.ok());
  const std::string in_decode =
      "WITH d AS (SELECT n.start, n.end, n.globalTid FROM NVTX_EVENTS n WHERE n.text = 'decode'), "
      "k AS (SELECT k.*, r.start AS call FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
      "ON r.correlationId = k.correlationId AND (r.globalTid & ~16777215) = k.globalPid JOIN d "
      "ON r.globalTid = d.globalTid AND r.start >= d.start AND r.end <= d.end) ";
  auto top = db->Prepare(in_decode +
                         "SELECT s.value, count(*), sum(k.end - k.start) AS t FROM k JOIN StringIds s "
                         "ON s.id = k.mangledName GROUP BY k.mangledName ORDER BY t DESC");
  ASSERT_TRUE(top.ok());
  int64_t total = 0;
  std::vector<std::pair<std::string, int64_t>> by_time;
  while (top->Step()) {
    by_time.emplace_back(top->Text(0), top->Int(2));
    total += top->Int(2);
  }
  EXPECT_EQ(sel->scope_ns, total);
  auto launches = db->Prepare(in_decode + "SELECT count(*) FROM k");
  ASSERT_TRUE(launches.ok() && launches->Step());
  EXPECT_EQ(sel->scope_kernels, launches->Int(0));
  EXPECT_EQ(sel->scope_kernels, 2992);  // decode's GPU operations as nsys's nvtx_gpu_proj_sum counts them
  ASSERT_EQ(sel->kernels.size(), 18U);  // 18 kernels reach the 90% coverage
  double cumulative = 0;
  for (size_t i = 0; i < sel->kernels.size(); ++i) {
    EXPECT_EQ(sel->kernels[i].mangled, by_time[i].first) << i;
    EXPECT_EQ(sel->kernels[i].total_ns, by_time[i].second) << i;
    cumulative += 100.0 * static_cast<double>(by_time[i].second) / static_cast<double>(total);
  }
  EXPECT_NEAR(sel->covered_pct, cumulative, 1e-9);
  EXPECT_GE(sel->covered_pct, 90);
  EXPECT_LT(cumulative - 100.0 * static_cast<double>(by_time[17].second) / static_cast<double>(total), 90);

  // Picks: per (kernel, grid, block, dynamic shared memory), launches 3 to 5 in call order.
  std::string names;
  for (const auto& k : sel->kernels) names += (names.empty() ? "'" : ",'") + k.mangled + "'";
  auto picks = db->Prepare(in_decode +
                           ", c AS (SELECT k.start, row_number() OVER (PARTITION BY k.mangledName, k.gridX, k.gridY, "
                           "k.gridZ, k.blockX, k.blockY, k.blockZ, k.dynamicSharedMemory ORDER BY k.call) AS nth "
                           "FROM k JOIN StringIds s ON s.id = k.mangledName WHERE s.value IN (" +
                           names + ")) SELECT start FROM c WHERE nth BETWEEN 3 AND 5 ORDER BY start");
  ASSERT_TRUE(picks.ok()) << picks.error().Line();
  std::vector<int64_t> expected;
  while (picks->Step()) expected.push_back(picks->Int(0));
  ASSERT_EQ(sel->passes.size(), 1U);  // 93 launches fit one ncu run
  EXPECT_EQ(Starts(sel->passes[0].profiled_rows), expected);
  EXPECT_EQ(expected.size(), 93U);
}

TEST_F(SelectionTest, WholeRunAndTheCommandLines) {
  config::SelectionConfig cfg;
  cfg.top = 3;
  cfg.launches = 1;
  cfg.warmup = 2;
  cfg.max_pass_launches = 4;  // forces several ncu runs
  auto sel = capture::SelectKernels(*store_, run_, cfg, 0, 1);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  EXPECT_EQ(sel->nvtx_include, "");
  EXPECT_EQ(sel->scope_kernels, 3778);
  ASSERT_EQ(sel->kernels.size(), 3U);
  int64_t profiled = 0;
  for (const auto& p : sel->passes) {
    if (p.kernels.size() > 1) {
      EXPECT_LE(p.profiled_rows.size(), 4U);  // one kernel alone may need more
    }
    profiled += static_cast<int64_t>(p.profiled_rows.size());
  }
  int64_t picks = 0;
  for (const auto& k : sel->kernels) picks += k.profiled;
  EXPECT_EQ(profiled, picks);
  config::NcuConfig ncu;
  const auto argv =
      capture::NcuProfileArgv("ncu", ncu, *sel, sel->passes[0], {}, "runs/1/ncu/pass1", {"python3", "w.py", "--x"});
  const std::vector<std::string> head{"ncu",     "--target-processes", "all", "--kernel-name-base",
                                      "mangled", "--kernel-name"};
  ASSERT_GT(argv.size(), head.size());
  EXPECT_TRUE(std::equal(head.begin(), head.end(), argv.begin()));
  const std::vector<std::string> tail{"--filter-mode",
                                      "per-launch-config",
                                      "--launch-skip",
                                      "2",
                                      "--launch-count",
                                      "1",
                                      "--section",
                                      "SpeedOfLight",
                                      "--section",
                                      "MemoryWorkloadAnalysis",
                                      "--section",
                                      "LaunchStats",
                                      "--section",
                                      "Occupancy",
                                      "--section",
                                      "WarpStateStats",
                                      "--replay-mode",
                                      "kernel",
                                      "--clock-control",
                                      "base",
                                      "--cache-control",
                                      "all",
                                      "-o",
                                      "runs/1/ncu/pass1",
                                      "-f",
                                      "python3",
                                      "w.py",
                                      "--x"};
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), argv.begin() + 7));
  EXPECT_EQ(argv.size(), 7 + tail.size());
}

TEST_F(SelectionTest, StageMistakesAreExplained) {
  config::SelectionConfig cfg;
  cfg.stage = "decod";
  auto sel = capture::SelectKernels(*store_, run_, cfg, 0, 1);
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().Line(),
            "kscope: error: selection.stage: no NVTX range 'decod' in the discovery run; ranges seen: 'decode', "
            "'prefill' (a range in a named domain is written domain@range)");
  cfg.stage = "torch@decode";  // a domain that the run does not have
  EXPECT_FALSE(capture::SelectKernels(*store_, run_, cfg, 0, 1).ok());
}

TEST(Commands, RegexEscapingAndQuoting) {
  EXPECT_EQ(capture::EscapeRegex("a.b$c(d)"), "a\\.b\\$c\\(d\\)");
  EXPECT_EQ(capture::UnionFilter({"_Z3fooi", "bar.1"}), "regex:^(_Z3fooi|bar\\.1)$");
  EXPECT_EQ(capture::UnionFilter({"nvjet_x"}), "regex:^nvjet_x$");
  EXPECT_EQ(capture::ShellQuote({"ncu", "--kernel-name", "regex:^(a|b)$", "it's"}),
            "ncu --kernel-name 'regex:^(a|b)$' 'it'\\''s'");
}

TEST(Commands, NsysWithACaptureRange) {
  config::NsysConfig c;
  c.capture_range = "decode";
  EXPECT_EQ(
      capture::NsysProfileArgv("nsys", c, "runs/3/nsys/discovery", {"python3", "w.py"}),
      (std::vector<std::string>{"nsys", "profile", "--trace=cuda,nvtx,osrt", "--sample=none", "--cuda-graph-trace=node",
                                "--capture-range=nvtx", "--nvtx-capture=decode", "--capture-range-end=stop",
                                "--gpu-metrics-devices=all", "--gpu-metrics-frequency=1000", "-o",
                                "runs/3/nsys/discovery", "--force-overwrite=true", "python3", "w.py"}));
  // PyTorch's ranges are unregistered strings, which nsys matches only when told so.
  EXPECT_EQ(capture::NsysProfileEnv(c).at("NSYS_NVTX_PROFILER_REGISTER_ONLY"), "0");
  EXPECT_TRUE(capture::NsysProfileEnv(config::NsysConfig{}).empty());
}

// A workload that sees some GPUs only gets their GPU metrics sampled alone: sampling the others
// took the profiling counters of an ncu run on another GPU of the host (docs/gpu/issue22_zoo).
TEST(Commands, NsysSamplesTheVisibleGpusOnlyWhereTheWorkloadSeesSome) {
  const config::NsysConfig c;
  const auto only = capture::NsysProfileArgv("nsys", c, "o", {"w"}, true);
  EXPECT_NE(std::find(only.begin(), only.end(), "--gpu-metrics-devices=cuda-visible"), only.end());
  EXPECT_EQ(std::find(only.begin(), only.end(), "--gpu-metrics-devices=all"), only.end());
  EXPECT_TRUE(capture::SeesSomeGpusOnly({{"CUDA_VISIBLE_DEVICES", "1"}}));
  const bool inherited = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
  EXPECT_EQ(capture::SeesSomeGpusOnly({}), inherited);
}

}  // namespace
}  // namespace kscope