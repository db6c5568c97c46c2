// kscope profile end to end on recorded real outputs: nsys, ncu and nvidia-smi as they ran
// for the Llama workload on an H100 (tests/data/capture/llama_h100/, recorded by
// docs/gpu/issue4_profile.sh), replayed through the same orchestration, import, selection
// and linking code; then the failures users meet, each from a real recorded output.
// (llama_h100/ also holds the roofline-mode deep pass of the decode stage that the same GPU
// run made with --discovery; the report tests use it.) That run's ncu report was not kept,
// only the raw and details pages ncu exported of it, so these replays read the deep pass as
// ncu.import=export does; profile_native_replay_test.cc replays real reports read natively.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "capture/commands.h"
#include "capture/profile.h"
#include "capture/run_dir.h"
#include "capture/run_dir_import.h"
#include "config/config.h"
#include "kscope_binary.h"
#include "profile_replay_fixture.h"
#include "recorded_runner.h"
#include "report/html_report.h"
#include "report/kernel_reports.h"
#include "report/report_text.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "report/table.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using testing::kRec;
using testing::kRun;
using testing::kWorkload;
using testing::ProfileReplay;

TEST_F(ProfileReplay, RecordedLlamaRunLandsAsOneCompleteRun) {
  auto result = Profile();
  ASSERT_TRUE(result.ok()) << result.error().Line();
  ASSERT_FALSE(result->error) << result->error->Line() << "\n" << screen_.str();
  EXPECT_TRUE(result->complete);
  const int64_t run = result->run_id;
  // Both imports in one run: the discovery (3,404 kernels) and the 168 profiled launches,
  // every one linked to the discovery launch the plan expected, name and shape checked.
  EXPECT_EQ(*store_->StreamRows(run, "kernel"), 3404);
  EXPECT_EQ(Count("SELECT count(*) FROM ncu_launch"), 168);
  EXPECT_EQ(
      Count("SELECT count(*) FROM ncu_launch WHERE kernel_link = 'planned' AND kernel_run = " + std::to_string(run)),
      168);
  auto info = store_->GetRun(run);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->status, "complete");
  EXPECT_EQ(info->manifest.label, "llama-quick");
  EXPECT_EQ(info->manifest.gpu, "NVIDIA H100 80GB HBM3");
  // One nsys, two versions: what `nsys --version` printed, and what its discovery export records.
  EXPECT_EQ(info->manifest.nsys_tool_version, "2025.3.1.0");
  EXPECT_EQ(info->manifest.nsys_export_version, "2025.3.2.0");
  EXPECT_EQ(info->manifest.ncu_version, "2025.3.1.0");
  EXPECT_EQ(info->manifest.command, "python3 llama_workload.py 4 2 128 16");

  // The programs kscope ran, in order, and the exact ncu command of the deep pass.
  std::vector<std::string> kinds;
  for (const auto& [kind, argv] : runner_.calls) kinds.push_back(kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"nsys --version", "ncu --version", "nvidia-smi", "ncu --list-sets",
                                             "ncu --list-sections", "ncu --query-metrics", "python", "nsys profile",
                                             "nsys export", "ncu profile", "ncu export raw", "ncu export details"}));
  const auto recorded = nlohmann::json::parse(testing::ReadFile(kRun + "recorded_manifest.json"));
  ASSERT_TRUE(result->selection);
  ASSERT_EQ(result->selection->passes.size(), 1U);
  EXPECT_EQ(result->selection->passes[0].filter, recorded["selection"]["passes"][0]["filter"]);
  EXPECT_EQ(result->selection->passes[0].profiled_rows.size(), 168U);
  const auto& ncu = runner_.calls[9].second;
  const std::string out = (dir_ / "runs" / std::to_string(run) / "ncu" / "pass1").string();
  std::vector<std::string> expected{"ncu",
                                    "--target-processes",
                                    "all",
                                    "--kernel-name-base",
                                    "mangled",
                                    "--kernel-name",
                                    recorded["selection"]["passes"][0]["filter"],
                                    "--filter-mode",
                                    "per-launch-config",
                                    "--launch-skip",
                                    "2",
                                    "--launch-count",
                                    "3",
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
                                    out,
                                    "-f"};
  expected.insert(expected.end(), kWorkload.begin(), kWorkload.end());
  EXPECT_EQ(ncu, expected);

  // The run directory and its manifest.
  const fs::path root = dir_ / "runs" / std::to_string(run);
  for (const char* f : {"nsys/discovery.sqlite", "ncu/pass1_raw.csv", "ncu/pass1_details.csv", "logs/nsys_profile.log",
                        "logs/ncu_pass1.log", "manifest.json"}) {
    EXPECT_TRUE(fs::exists(root / f)) << f;
  }
  const auto m = nlohmann::json::parse(testing::ReadFile((root / "manifest.json").string()));
  EXPECT_EQ(m["status"], "complete");
  EXPECT_EQ(m["environment"]["torch"], "2.11.0+cu130");
  EXPECT_EQ(m["gpu"]["sm_max_clock_mhz"], 1980.0);
  EXPECT_EQ(m["ncu_settings"]["clock_control"], "base");
  EXPECT_EQ(m["ncu_settings"]["import"],
            nlohmann::json({{"by", "ncu's raw and details pages (ncu --import REPORT --page PAGE --csv)"}}));
  EXPECT_EQ(m["steps"].size(), 5U);
  EXPECT_EQ(m["steps"][2]["launches_profiled"], 168);
  EXPECT_EQ(m["steps"][2]["linked"], 168);
  EXPECT_EQ(m["selection"]["kernels"].size(), 20U);
  EXPECT_EQ(*store_->RunCapture(run), m.dump());

  // Progress as a log shows it: kernel k of N, passes, elapsed, an estimate of what remains.
  const std::string screen = screen_.str();
  EXPECT_NE(screen.find("[3/3] ncu: kernel 16 of 168 (11 passes), run 1 of 1, 0:00 elapsed, ~0:00 left"),
            std::string::npos)
      << screen;
  EXPECT_NE(screen.find("[3/3] ncu: 168 launches profiled"), std::string::npos);

  // And the profiled kernels read as kscope kernels shows them.
  auto table = report::KernelsTable(*store_, run, {});
  ASSERT_TRUE(table.ok()) << table.error().Line();
  EXPECT_EQ(table->rows.size(), 58U);  // distinct kernel name and shape pairs among the 168 launches
}

// The recorded discovery export has no GPU_METRICS table (its nsys run sampled none): with
// nsys.gpu_metrics=on the run says so, in its manifest and on the screen, and not when it is off.
bool NotesNoGpuMetrics(const fs::path& root) {
  const auto m = nlohmann::json::parse(testing::ReadFile((root / "manifest.json").string()));
  for (const auto& n : m["notes"]) {
    if (n.get<std::string>().starts_with("nsys sampled no GPU metrics")) return true;
  }
  return false;
}

TEST_F(ProfileReplay, ADiscoveryWithoutGpuMetricsSaysSo) {
  auto r = Profile();
  ASSERT_TRUE(r.ok()) << r.error().Line();
  EXPECT_TRUE(NotesNoGpuMetrics(dir_ / "runs" / std::to_string(r->run_id))) << screen_.str();
  EXPECT_NE(screen_.str().find("note: nsys sampled no GPU metrics"), std::string::npos);
}

TEST_F(ProfileReplay, NoGpuMetricsAskedNoneMissed) {
  config_.nsys.gpu_metrics = "off";
  auto r = Profile();
  ASSERT_TRUE(r.ok()) << r.error().Line();
  EXPECT_FALSE(NotesNoGpuMetrics(dir_ / "runs" / std::to_string(r->run_id)));
}

TEST_F(ProfileReplay, KernelFilterThatMatchesNothingNamesTheClosestKernels) {
  runner_.replies["ncu profile"] = testing::Prints(kRec + "ncu_nokernel.out");
  runner_.replies["ncu profile"].writes_report = false;
  auto result = Profile();
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result->error);
  EXPECT_FALSE(result->complete);
  const std::string line = result->error->Line();
  EXPECT_EQ(line.rfind("kscope: error: ncu: ncu profiled no kernel: the filter regex:^(nvjet_sm90_tst_64x8", 0), 0U)
      << line;
  EXPECT_NE(line.find("closest kernels ncu saw: "), std::string::npos) << line;
  EXPECT_NE(line.find("its output: "), std::string::npos);
  // What was gathered stays: the discovery is in the run, marked incomplete.
  EXPECT_EQ(*store_->StreamRows(result->run_id, "kernel"), 3404);
  EXPECT_EQ(store_->GetRun(result->run_id)->status, "incomplete");
}

TEST_F(ProfileReplay, WorkloadFailingUnderNsysKeepsWhatNsysWrote) {
  runner_.replies["nsys profile"] = testing::Prints(kRec + "nsys_fail.out", 3);
  auto result = Profile();
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result->error);
  EXPECT_EQ(result->error->Line().substr(0, 73),
            "kscope: error: nsys: the workload exit 3 under nsys; the discovery data u");
  EXPECT_EQ(*store_->StreamRows(result->run_id, "kernel"), 3404);
  EXPECT_EQ(store_->GetRun(result->run_id)->status, "incomplete");
  for (const auto& [kind, argv] : runner_.calls) EXPECT_NE(kind, "ncu profile");
}

TEST_F(ProfileReplay, MissingImporterLibrariesAreExplained) {
  runner_.replies["nsys profile"] = testing::Prints(kRec + "nsys_nolibs.err");
  runner_.replies["nsys profile"].writes_report = false;
  auto result = Profile();
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result->error);
  EXPECT_EQ(result->error->what, "recorded the run but could not turn it into a report (its importer failed to start)");
  EXPECT_EQ(result->error->fix.substr(0, 89),
            "the importer needs libdw.so.1 and libelf.so.1 (Debian/Ubuntu: libdw1, libelf1); kscope do");
}

// The points of a sweep share one session: tool versions and torch are asked once, the GPU
// (its clocks) each run; every run's manifest still records them all.
TEST_F(ProfileReplay, ASessionAsksToolAndTorchVersionsOnce) {
  capture::ProfileSession session(*store_, runner_, {"nsys", "ncu"}, screen_, false);
  capture::ProfileRequest req;
  req.workload = kWorkload;
  req.config = config_;
  auto first = session.Run(req);
  ASSERT_TRUE(first.ok() && !first->error);
  const size_t calls_of_first = runner_.calls.size();
  auto second = session.Run(req);
  ASSERT_TRUE(second.ok() && !second->error);
  std::vector<std::string> kinds;
  for (size_t i = calls_of_first; i < runner_.calls.size(); ++i) kinds.push_back(runner_.calls[i].first);
  EXPECT_EQ(kinds, (std::vector<std::string>{"nvidia-smi", "nsys profile", "nsys export", "ncu profile",
                                             "ncu export raw", "ncu export details"}));
  const auto m = nlohmann::json::parse(testing::ReadFile(second->run_dir + "/manifest.json"));
  const auto m1 = nlohmann::json::parse(testing::ReadFile(first->run_dir + "/manifest.json"));
  ASSERT_TRUE(m1["environment"]["torch"].is_string());
  EXPECT_EQ(m["environment"]["torch"], m1["environment"]["torch"]);
  EXPECT_EQ(m["tools"], m1["tools"]);
  EXPECT_EQ(store_->GetRun(second->run_id)->manifest.ncu_version, "2025.3.1.0");
}

TEST_F(ProfileReplay, InterruptedDuringNcuKeepsTheDiscoveryAndMarksTheRun) {
  runner_.replies["ncu profile"] = testing::Prints(kRun + "ncu_pass1.log");
  runner_.replies["ncu profile"].signal = 15;
  runner_.replies["ncu profile"].interrupted = true;
  auto result = Profile();
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result->error);
  EXPECT_EQ(result->error->what, "interrupted during ncu run 1");
  EXPECT_EQ(store_->GetRun(result->run_id)->status, "incomplete");
  // ncu wrote the launches it had profiled; they are imported and linked.
  EXPECT_EQ(Count("SELECT count(*) FROM ncu_launch WHERE kernel_link = 'planned'"), 168);
  const auto m = nlohmann::json::parse(testing::ReadFile(result->run_dir + "/manifest.json"));
  EXPECT_EQ(m["status"], "incomplete");
  // kscope report finds the run's directory in the stored manifest and writes there.
  const auto stored = nlohmann::json::parse(*store_->RunCapture(result->run_id));
  EXPECT_EQ(stored["run_dir"], fs::absolute(result->run_dir).string());
  EXPECT_EQ(m["steps"][2]["interrupted"], true);
}

// Issue 22: "incomplete runs (ncu stopped) look complete in the terminal and report.md". The
// run stopped during ncu says so first in every output: what stopped, and what is in.
TEST_F(ProfileReplay, AnIncompleteRunSaysSoAtTheTopOfEveryOutput) {
  runner_.replies["ncu profile"] = testing::Prints(kRun + "ncu_pass1.log");
  runner_.replies["ncu profile"].signal = 15;
  runner_.replies["ncu profile"].interrupted = true;
  auto result = Profile();
  ASSERT_TRUE(result.ok());
  auto r = report::BuildRunReport(*store_, result->run_id, config_);
  ASSERT_TRUE(r.ok()) << r.error().Line();
  ASSERT_TRUE(r->incomplete.has_value());
  const std::string& what = *r->incomplete;
  EXPECT_EQ(what.rfind("INCOMPLETE RUN (status 'incomplete')", 0), 0U) << what;
  EXPECT_NE(what.find("interrupted during ncu run 1"), std::string::npos) << what;
  EXPECT_NE(what.find("was interrupted"), std::string::npos) << what;
  EXPECT_NE(what.find("168 launches profiled by ncu are in"), std::string::npos) << what;
  std::ostringstream text, md, html;
  report::WriteReportSummary(*r, text);
  report::WriteReportMarkdown(*r, md);
  ASSERT_TRUE(report::WriteHtmlReport(*r, html).ok());
  const auto second_line = text.str().substr(text.str().find('\n') + 1);
  EXPECT_EQ(second_line.rfind(what, 0), 0U) << text.str().substr(0, 400);
  EXPECT_EQ(md.str().find("**" + report::MarkdownText(what) + "**"), md.str().find("\n\n") + 2);
  EXPECT_LT(html.str().find("id=\"incomplete\""), html.str().find("id=\"run\""));
  EXPECT_EQ(report::ToJson(*r)["incomplete"], what);
}

TEST_F(ProfileReplay, ProblemsBeforeAnyRunAreOneLine) {
  const fs::path old = dir_ / "old_nsys.txt";
  std::ofstream(old) << "NVIDIA Nsight Systems version 2022.4.2.50-32196742v0\n";
  runner_.replies["nsys --version"] = testing::Prints(old.string());
  auto too_old = Profile();
  ASSERT_FALSE(too_old.ok());
  EXPECT_EQ(too_old.error().Line(),
            "kscope: error: nsys: nsys 2022.4.2.50 is older than 2023.1, the oldest kscope drives; install a newer "
            "Nsight Systems");
  runner_.replies["nsys --version"] = testing::Prints(kRun + "nsys_version.log");
  const fs::path smi = dir_ / "smi.txt";
  std::ofstream(smi) << "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
                        "that the latest NVIDIA driver is installed and running.\n";
  runner_.replies["nvidia-smi"] = testing::Prints(smi.string(), 9);
  auto no_gpu = Profile();
  ASSERT_FALSE(no_gpu.ok());
  EXPECT_EQ(no_gpu.error().Line().substr(0, 101),
            "kscope: error: nvidia-smi: no usable NVIDIA GPU: NVIDIA-SMI has failed because it couldn't communicat");
  EXPECT_EQ(Count("SELECT count(*) FROM run"), 0);  // nothing started, nothing recorded
}

// Hydra's workloads: every argument reaches the workload byte for byte (kscope reads no ${...}),
// and {kscope.run_dir} or KSCOPE_RUN_DIR tell it the run directory.
TEST_F(ProfileReplay, HydraArgumentsReachTheWorkloadAsWritten) {
  capture::ProfileSession session(*store_, runner_, {"nsys", "ncu"}, screen_, false);
  capture::ProfileRequest req;
  req.workload = {"python3", "train.py", "out=${run.mode}", "hydra.run.dir={kscope.run_dir}/hydra", "+x={a}"};
  req.config = config_;
  auto result = session.Run(req);
  ASSERT_TRUE(result.ok()) << result.error().Line();
  ASSERT_FALSE(result->error) << result->error->Line();
  const std::string run_dir = fs::absolute(result->run_dir).string();
  const std::vector<std::string> expected{"python3", "train.py", "out=${run.mode}",
                                          "hydra.run.dir=" + run_dir + "/hydra", "+x={a}"};
  for (const auto& [kind, argv] : runner_.calls) {
    if (kind != "nsys profile" && kind != "ncu profile") continue;
    ASSERT_GE(argv.size(), expected.size());
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), argv.end() - static_cast<long>(expected.size()))) << kind;
  }
  const auto m = nlohmann::json::parse(testing::ReadFile(result->run_dir + "/manifest.json"));
  EXPECT_EQ(m["workload"], expected);
  EXPECT_EQ(m["steps"][0]["env"]["KSCOPE_RUN_DIR"], run_dir);
}

// A trace above profile.max_trace_mb stops before the export, with the way out; the report stays.
TEST_F(ProfileReplay, ATraceAboveTheCapStopsBeforeTheExport) {
  config_.profile.max_trace_mb = 0.000001;  // the recorded report file holds 8 bytes
  auto result = Profile();
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result->error);
  EXPECT_EQ(result->error->what,
            "nsys's report is 0.0 MB, above profile.max_trace_mb=1e-06; its SQLite export would be larger still");
  EXPECT_EQ(result->error->fix,
            "record less (nsys.duration_s=S, or an NVTX range with nsys.capture_range), or raise "
            "profile.max_trace_mb; the report is kept");
  EXPECT_EQ(runner_.calls.back().first, "nsys profile");
  EXPECT_TRUE(fs::exists(result->run_dir + "/nsys/discovery.nsys-rep"));
  // nsys.duration_s bounds the recording itself.
  config::NsysConfig n;
  n.duration_s = 30;
  const auto argv = capture::NsysProfileArgv("nsys", n, "o", {"w"});
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--duration=30"), argv.end());
}

// ncu's warning that kernel replay saves and restores device memory becomes advice.
TEST_F(ProfileReplay, MemoryBackupWarningSuggestsApplicationReplay) {
  const fs::path log = dir_ / "ncu_backup.log";
  std::ofstream(log) << testing::ReadFile(kRun + "ncu_pass1.log")
                     << "==WARNING== Backing up device memory in system memory. Kernel replay might be slow. "
                        "Consider using \"--replay-mode application\" to avoid memory save-and-restore.\n";
  runner_.replies["ncu profile"] = testing::Prints(log.string());
  auto result = Profile();
  ASSERT_TRUE(result.ok() && !result->error);
  const auto m = nlohmann::json::parse(testing::ReadFile(result->run_dir + "/manifest.json"));
  EXPECT_EQ(m["notes"].back(),
            "ncu run 1: ncu backed up device memory in system memory before each kernel replay (the workload holds "
            "more device memory than ncu can copy on the GPU), which makes kernel replay slow; "
            "ncu.replay=application reruns the workload instead of saving and restoring its memory");
}

// Against an earlier discovery, a kernel that is not there stops kscope before it makes a run.
TEST_F(ProfileReplay, ASelectionMistakeMakesNoRun) {
  ASSERT_TRUE(Profile().ok());
  config_.selection.kernel = "splitk_TNT";
  auto result = Profile(1);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().where, "selection.kernel");
  EXPECT_EQ(Count("SELECT count(*) FROM run"), 1);
  EXPECT_FALSE(fs::exists(dir_ / "runs" / "2"));
}

TEST_F(ProfileReplay, OlderRunDirectoriesAreCompressed) {
  config_.profile.keep_runs = 1;
  ASSERT_TRUE(Profile().ok());
  ASSERT_TRUE(Profile().ok());
  const fs::path first = dir_ / "runs" / "1";
  EXPECT_TRUE(fs::exists(first / "nsys" / "discovery.sqlite.zst"));
  EXPECT_FALSE(fs::exists(first / "nsys" / "discovery.sqlite"));
  EXPECT_EQ(testing::Unzstd((first / "ncu" / "pass1_raw.csv.zst").string()),
            testing::Unzstd(kRun + "pass1_raw.csv.zst"));
  EXPECT_TRUE(fs::exists(dir_ / "runs" / "2" / "nsys" / "discovery.sqlite"));
}

}  // namespace
}  // namespace kscope
