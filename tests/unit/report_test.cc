// kscope report on real data: stages equal nsys's own nvtx_gpu_proj_sum, top kernels and run
// totals its cuda_gpu_kern_sum, cuda_gpu_mem_time_sum and cuda_api_sum; the devset Llama
// run's whole report against its reviewed golden files (decode launch-bound, GPU idle), the
// analytic FLOP count by hand, and the FLOPs ncu measured on the H100's decode stage
// (tests/data/capture/llama_h100/, replayed through kscope profile) against ncu's own counts.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/stages/stages.h"
#include "capture/profile.h"
#include "config/config.h"
#include "import/import_files.h"
#include "import/ncu/csv_records.h"
#include "recorded_runner.h"
#include "report/nsys_numbers.h"
#include "report/report_text.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "store/event_reader.h"
#include "store/event_streams.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kData = std::string(KSCOPE_TEST_DATA_DIR) + "/";

// nsys's CSV rows (libcsv, as kscope's ncu CSV importer reads them).
std::vector<std::vector<std::string>> CsvRows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  auto read = import::ncu::ReadCsvRecords(path, [&](const import::ncu::CsvRecord& r) {
    rows.push_back(r.fields);
    return Status{};
  });
  EXPECT_TRUE(read.ok()) << path;
  return rows;
}

// Every stage figure nsys prints equals its nvtx_gpu_proj_sum, row for row, in its order,
// and its nvtx_sum.
class StagesFidelity : public ::testing::TestWithParam<std::string> {};

TEST_P(StagesFidelity, EqualNsysProjection) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {testing::NsysData(GetParam() + ".sqlite")}, {});
  ASSERT_TRUE(out.ok());
  auto stages = analysis::ComputeStages(*s, out->front().run_id);
  ASSERT_TRUE(stages.ok()) << stages.error().Line();
  const auto expected = CsvRows(testing::NsysData("expected/" + GetParam() + "/nvtx_gpu_proj_sum.csv"));
  ASSERT_EQ(stages->size(), expected.size() - 1);
  for (size_t i = 0; i < stages->size(); ++i) {
    const auto& st = (*stages)[i];
    const auto& e = expected[i + 1];
    EXPECT_EQ(st.name, e[0]);
    EXPECT_EQ(st.style, e[1]);
    EXPECT_EQ(std::to_string(st.proj_ns), e[2]);
    EXPECT_EQ(std::to_string(st.proj_range_ns), e[3]);
    EXPECT_EQ(std::to_string(st.proj_instances), e[4]);
    EXPECT_EQ(std::to_string(st.gpu_ops), e[10]);
    EXPECT_EQ(st.kernels + st.memops, st.gpu_ops);  // kscope's own count of the work agrees
  }
  // Instances and range time of every range: nvtx_sum's, matched by style and name.
  size_t matched = 0;
  for (const auto& row : CsvRows(testing::NsysData("expected/" + GetParam() + "/nvtx_sum.csv"))) {
    for (const auto& st : *stages) {
      if (row.size() != 10 || st.style != row[8] || st.name != row[9]) continue;
      EXPECT_EQ(std::to_string(st.instances), row[2]) << st.name;
      EXPECT_EQ(std::to_string(st.range_ns), row[1]) << st.name;
      ++matched;
    }
  }
  EXPECT_EQ(matched, stages->size());
}
INSTANTIATE_TEST_SUITE_P(Devset, StagesFidelity, ::testing::Values("llama", "tiny_cuda"));

// The kernels kscope finds inside each stage are nsys's nvtx_kern_sum rows for the range.
TEST(Stages, KernelsInsideAgreeWithNvtxKernSum) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  auto out = import::ImportFiles(*s, {testing::NsysData("llama.sqlite")}, {});
  ASSERT_TRUE(out.ok());
  auto stages = analysis::ComputeStages(*s, out->front().run_id);
  ASSERT_TRUE(stages.ok());
  std::map<std::string, std::pair<int64_t, int64_t>> expected;  // range -> (instances, total ns)
  for (const auto& row : CsvRows(testing::NsysData("expected/llama/nvtx_kern_sum.csv"))) {
    if (row.size() < 7 || row[0].empty() || row[0] == "NVTX Range") continue;
    expected[row[0]].first += std::stoll(row[5]);
    expected[row[0]].second += std::stoll(row[6]);
  }
  for (const auto& st : *stages) {
    EXPECT_EQ(st.kernels, expected[st.name].first) << st.name;
    EXPECT_EQ(st.kernel_ns, expected[st.name].second) << st.name;
  }
}

// The report's top kernels and run totals are the figures nsys prints for the same export:
// cuda_gpu_kern_sum's first rows (name, time, instances, average, share, in its order), and
// the sums of cuda_gpu_kern_sum, cuda_gpu_mem_time_sum and cuda_api_sum.
class ReportFidelity : public ::testing::TestWithParam<std::string> {};

TEST_P(ReportFidelity, TopKernelsAndTotalsEqualNsysStats) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {testing::NsysData(GetParam() + ".sqlite")}, {});
  ASSERT_TRUE(out.ok());
  auto rep = report::BuildRunReport(*s, out->front().run_id, config::Config{});
  ASSERT_TRUE(rep.ok()) << rep.error().Line();
  const std::string expected = "expected/" + GetParam() + "/";
  const auto kern = CsvRows(testing::NsysData(expected + "cuda_gpu_kern_sum.csv"));
  const auto& top = rep->top_kernels;
  ASSERT_EQ(top.size(), std::min<size_t>(20, kern.size() - 1));
  for (size_t i = 0; i < top.size(); ++i) {
    const auto& e = kern[i + 1];
    ASSERT_EQ(e.size(), 9U);
    EXPECT_EQ(top[i].name, e[8]);
    EXPECT_EQ(std::to_string(top[i].total_ns), e[1]);
    EXPECT_EQ(std::to_string(top[i].launches), e[2]);
    EXPECT_EQ(report::Round1(top[i].avg_ns).text, e[3]);
    EXPECT_EQ(report::Round1(top[i].share_pct).text, e[0]);
  }
  // Column `col` of a report summed over its rows.
  auto sum = [&](const std::string& report, size_t col) {
    int64_t total = 0;
    const auto rows = CsvRows(testing::NsysData(expected + report + ".csv"));
    for (size_t i = 1; i < rows.size(); ++i) total += std::stoll(rows[i][col]);
    return total;
  };
  const report::SummaryPart& summary = rep->summary;
  EXPECT_EQ(summary.kernel_ns, sum("cuda_gpu_kern_sum", 1));
  EXPECT_EQ(summary.kernels, sum("cuda_gpu_kern_sum", 2));
  EXPECT_EQ(summary.memop_ns, sum("cuda_gpu_mem_time_sum", 1));
  EXPECT_EQ(summary.memops, sum("cuda_gpu_mem_time_sum", 2));
  EXPECT_EQ(summary.api_calls, sum("cuda_api_sum", 2));
}
INSTANTIATE_TEST_SUITE_P(Devset, ReportFidelity, ::testing::Values("llama", "tiny_cuda"));

store::Store DevsetStore(int64_t& run) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  auto out = import::ImportFiles(
      *s, {testing::NsysData("llama.sqlite"), kData + "ncu/llama_deep_raw.csv", kData + "ncu/llama_deep_details.csv"},
      {});
  EXPECT_TRUE(out.ok()) << out.error().Line();
  run = out->front().run_id;
  return std::move(s).value();
}

// The whole report of the devset's Llama run (its nsys export with the ncu pages of a deep
// pass), checked in full against golden files that were read and checked by hand.
TEST(Report, DevsetLlamaRunEqualsItsGoldenFiles) {
  int64_t run = 0;
  auto store = DevsetStore(run);
  auto cfg = config::LoadConfig(std::string(KSCOPE_SOURCE_DIR) + "/examples/llama_devset.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().Line();
  auto r = report::BuildRunReport(store, run, *cfg);
  ASSERT_TRUE(r.ok()) << r.error().Line();
  json report_json = report::ToJson(*r);
  report_json["run"].erase("imported_at");  // the time of the import
  std::ostringstream md;
  report::WriteReportMarkdown(*r, md);
  const std::string json_text = report_json.dump(1) + "\n";
  const std::string golden = kData + "report/llama_report";
  const fs::path actual = fs::temp_directory_path() / "kscope_llama_report";
  std::ofstream(actual.string() + ".json") << json_text;
  std::ofstream(actual.string() + ".md") << md.str();
  EXPECT_EQ(json_text, testing::ReadFile(golden + ".json")) << "compare " << actual.string() << ".json";
  EXPECT_EQ(md.str(), testing::ReadFile(golden + ".md")) << "compare " << actual.string() << ".md";

  // What the issue asks to see: decode is launch-bound with the GPU mostly idle.
  ASSERT_FALSE(r->stages.empty());
  const report::StagePart& decode = r->stages[0];
  EXPECT_EQ(decode.name, ":decode");
  EXPECT_EQ(decode.gpu_ops, 2992);
  ASSERT_FALSE(decode.findings.empty());
  EXPECT_EQ(decode.findings[0].kind, "launch_bound");
  EXPECT_EQ(decode.findings[0].title, "Launch-bound: 2,992 GPU operations in 1.60 s, the GPU idle 99.6% of the time");
  // The model's FLOPs, by hand: 4 layers x (2 x 1024^2 + 2 x 1024 x 256 + 3 x 1024 x 2816)
  // + 1024 x 32000 = 77,856,768 matmul parameters; decode 32 tokens at context 136:
  // 2N = 2 x 77,856,768 x 32 = 4,982,833,152; with attention 4 x 4 x 1024 x 136 x 32 more:
  // 5,054,136,320; causal, half of that attention: 5,018,484,736.
  std::map<std::string, double> model;
  for (const auto& l : decode.mfu.lines) model[l.name] = l.flops;
  EXPECT_EQ(model.at("2N"), 4982833152.0);
  EXPECT_EQ(model.at("2N + attention"), 5054136320.0);
  EXPECT_EQ(model.at("2N + causal attention"), 5018484736.0);
  // Every line divides by one peak: the datasheet's dense BF16 (H200 SXM: 989.4 TFLOP/s).
  ASSERT_TRUE(decode.mfu.peak.has_value());
  EXPECT_EQ(decode.mfu.peak->precision, "Tensor BF16");
  EXPECT_EQ(decode.mfu.peak->flops_per_s, 989.4e12);
  for (const auto& l : decode.mfu.lines) {
    ASSERT_TRUE(l.mfu_pct.has_value()) << l.name;
    EXPECT_NEAR(*l.mfu_pct, 100 * l.flops / (decode.mfu.wall_ns * 1e-9) / 989.4e12, 1e-9);
  }
}

// Issue 22: "a headline MFU of 4.08e-11% from 0.0065% FLOP coverage". Without a model
// description, ncu's count is the prefill's only line, and it covers 3.6% of its kernel time:
// no MFU, the source says "not measured", and a note gives the coverage.
TEST(Report, AnMfuFromTooLittleFlopCoverageIsNotMeasured) {
  int64_t run = 0;
  auto store = DevsetStore(run);
  auto r = report::BuildRunReport(store, run, config::Config{});
  ASSERT_TRUE(r.ok()) << r.error().Line();
  const report::StagePart* prefill = nullptr;
  for (const auto& s : r->stages) {
    if (s.display_name == "prefill") prefill = &s;
  }
  ASSERT_NE(prefill, nullptr);
  const auto& m = prefill->mfu;
  ASSERT_EQ(m.lines.size(), 1U);
  EXPECT_EQ(m.lines.front().name, "measured (ncu)");
  EXPECT_LT(m.coverage_pct, 50);
  EXPECT_GT(m.coverage_pct, 0);
  EXPECT_EQ(m.mfu_source, "not measured");
  EXPECT_FALSE(m.mfu_pct.has_value());
  EXPECT_FALSE(m.lines.front().mfu_pct.has_value());
  EXPECT_TRUE(std::any_of(m.notes.begin(), m.notes.end(),
                          [](const std::string& n) { return n.starts_with("MFU not measured"); }));
}

// MFU's FLOP coverage counts compute kernels only (communication kernels left out), and every
// view says so: the terminal's MFU line, the measured line's "How" and the notes.
TEST(Report, FlopCoverageSaysItIsOfComputeKernelTime) {
  int64_t run = 0;
  auto store = DevsetStore(run);
  auto cfg = config::LoadConfig(std::string(KSCOPE_SOURCE_DIR) + "/examples/llama_devset.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().Line();
  auto r = report::BuildRunReport(store, run, *cfg);
  ASSERT_TRUE(r.ok()) << r.error().Line();
  std::ostringstream text, md;
  report::WriteReportSummary(*r, text);
  report::WriteReportMarkdown(*r, md);
  for (const std::string& view : {text.str(), md.str()}) {
    EXPECT_EQ(view.find("of kernel time)"), std::string::npos) << view;
    EXPECT_EQ(view.find("of the kernel time"), std::string::npos) << view;
  }
  int64_t measured = 0;
  for (const auto& st : r->stages) {
    for (const auto& l : st.mfu.lines) {
      if (l.name != "measured (ncu)") continue;
      ++measured;
      EXPECT_TRUE(l.formula.ends_with(fmt::format("({:.1f}% of the compute kernel time)", st.mfu.coverage_pct)))
          << l.formula;
    }
  }
  EXPECT_GT(measured, 0);
  EXPECT_NE(text.str().find("% of compute kernel time)"), std::string::npos) << text.str();
}

TEST(Report, MarkdownKeepsKernelNamesAsText) {
  EXPECT_EQ(report::MarkdownText("void f<(int)8, A&>(T1 *) | x"), "void f&lt;(int)8, A&amp;&gt;(T1 *) \\| x");
}

// A report without parts (no run, no kernels, no stages) is written, not a crash, and each
// empty part says in one line why it is empty.
TEST(Report, TextWritersCopeWithAnEmptyReport) {
  std::ostringstream md;
  std::ostringstream summary;
  report::WriteReportMarkdown(report::RunReport{}, md);
  report::WriteReportSummary(report::RunReport{}, summary);
  EXPECT_EQ(md.str(), R"(# kscope report: run 0

Wall time 0.000 s; the GPU busy 0.0% of it; 0 kernel launches (0.000 ms), 0 copies and sets (0.000 ms); 0 launches profiled by ncu.

## Findings

None: no idle, launch-bound or copy time past its threshold.

## Stages

None: the run has no NVTX ranges.

## Top kernels

None: the run has no kernel launches.

## Bottleneck mix

None: the run has no kernel time.

## Evidence per profiled kernel

None: the run has no ncu data.

## Roofline

None: no launch of this run was profiled with ncu's FLOP and DRAM metrics (kscope profile, or ncu results collected with --set roofline or full).

## Largest idle gaps

None: the GPU was never idle for as long as timeline.min_gap_us between its operations.
)");
  EXPECT_EQ(summary.str().substr(0, 21), "kscope report: run 0\n");
}

// The decode stage profiled on the H100 in roofline mode: kscope profile replayed (the quick
// discovery run, then --discovery with the roofline pass), then the report of that run.
TEST(Report, MeasuredFlopsOfTheH100DecodeStage) {
  const std::string rec = kData + "capture/llama_h100/";
  const fs::path dir = fs::temp_directory_path() / ("kscope_report_mfu_" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  testing::RecordedRunner runner;
  auto& r = runner.replies;
  runner.ReplayRecordedProfile(rec);
  std::ostringstream screen;
  capture::ProfileSession session(*s, runner, {"nsys", "ncu"}, screen, false);
  capture::ProfileRequest quick;
  quick.workload = {"python3", "llama_workload.py", "4", "2", "128", "16"};
  // The settings the recorded runs were made with; their reports are read from the pages ncu
  // exported (the reports themselves were not kept).
  quick.config = *config::LoadConfig(
      "", {"profile.runs_dir=" + (dir / "runs").string(), "profile.cache_dir=" + (dir / "cache").string(),
           "selection.top=20", "selection.warmup=2", "selection.launches=3", "selection.budget_s=0",
           "selection.growing_samples=0", "ncu.flops=off", "ncu.import=export"});
  auto first = session.Run(quick);
  ASSERT_TRUE(first.ok() && !first->error);
  r["ncu profile"] = testing::Prints(rec + "roofline_decode_ncu.log");
  r["ncu export raw"] = testing::Writes("", rec + "roofline_decode_raw.csv.zst");
  r["ncu export details"] = testing::Writes("", rec + "roofline_decode_details.csv.zst");
  capture::ProfileRequest roofline = quick;
  roofline.config = *config::LoadConfig(
      "", {"profile.runs_dir=" + (dir / "runs").string(), "profile.cache_dir=" + (dir / "cache").string(),
           "ncu.mode=roofline", "selection.stage=decode", "selection.launches=2", "selection.warmup=2",
           "selection.top=20", "selection.budget_s=0", "selection.growing_samples=0", "ncu.flops=off",
           "model.dtype=bf16", "ncu.import=export"});
  roofline.discovery_run = first->run_id;
  auto second = session.Run(roofline);
  ASSERT_TRUE(second.ok() && !second->error) << screen.str();
  auto rep = report::BuildRunReport(*s, second->run_id, roofline.config);
  ASSERT_TRUE(rep.ok()) << rep.error().Line();
  EXPECT_EQ(rep->run.timeline_run, first->run_id);

  const report::StagePart* decode = nullptr;
  for (const auto& st : rep->stages) {
    if (st.name == ":decode") decode = &st;
  }
  ASSERT_NE(decode, nullptr);
  const analysis::StageMfu& m = decode->mfu;
  EXPECT_EQ(m.mfu_source, "ncu");
  EXPECT_EQ(m.measured_launches, 64);
  EXPECT_EQ(m.instances, 1);  // one decode range: nothing to leave out as warm-up
  EXPECT_NEAR(m.coverage_pct, second->selection->deep_pct, 1e-9);

  // The tensor FLOPs from ncu's own counters, summed here independently: per launch
  // configuration, the tensor operations ncu counted on its profiled launches
  // (sm__ops_path_tensor_*.sum) per ns of those launches' own duration in the timeline, times
  // the duration of each of the configuration's launches in the decode stage.
  auto stages = analysis::ComputeStages(*s, first->run_id);
  ASSERT_TRUE(stages.ok());
  const analysis::Stage* st = nullptr;
  for (const auto& x : *stages) {
    if (x.name == ":decode") st = &x;
  }
  ASSERT_NE(st, nullptr);
  namespace k = store::kernel;
  auto cols = store::ReadColumns(
      s->db(), first->run_id, store::kKernelStream,
      {k::kName, k::kGridX, k::kGridY, k::kGridZ, k::kBlockX, k::kBlockY, k::kBlockZ, k::kStart, k::kEnd});
  ASSERT_TRUE(cols.ok());
  auto config_of = [&](int64_t row) {
    std::vector<int64_t> c;
    for (size_t i = 0; i < 7; ++i) c.push_back((*cols)[i][static_cast<size_t>(row)]);
    return c;
  };
  auto ns_of = [&](int64_t row) {
    return static_cast<double>((*cols)[8][static_cast<size_t>(row)] - (*cols)[7][static_cast<size_t>(row)]);
  };
  auto q = s->db().Prepare(
      "SELECT l.kernel_index, sum(m.value) FROM ncu_launch l JOIN ncu_metric m ON m.run_id = l.run_id AND "
      "m.launch_id = l.id JOIN string s ON s.id = m.metric_id WHERE l.run_id = ?1 AND s.value IN "
      "('sm__ops_path_tensor_src_bf16_dst_fp32.sum', 'sm__ops_path_tensor_src_fp16.sum', "
      "'sm__ops_path_tensor_src_tf32_dst_fp32.sum', 'sm__ops_path_tensor_src_fp8.sum') GROUP BY l.id");
  ASSERT_TRUE(q.ok()) << q.error().Line();
  q->Bind(1, second->run_id);
  std::map<std::vector<int64_t>, double> tensor, profiled_ns;
  while (q->Step()) {
    const auto c = config_of(q->Int(0));
    tensor[c] += q->Double(1);
    profiled_ns[c] += ns_of(q->Int(0));
  }
  double expected_tensor = 0;
  for (int64_t row : st->kernel_rows) {
    const auto c = config_of(row);
    if (profiled_ns.count(c) != 0) expected_tensor += tensor[c] / profiled_ns[c] * ns_of(row);
  }
  ASSERT_GT(expected_tensor, 1e9);
  // kscope's count: the tensor part equals ncu's counters (to the counters' own rounding of
  // rate x time, 1e-6); what exceeds it is FP32/FP16 instruction work, a small share here.
  ASSERT_TRUE(m.measured_flops.has_value());
  const double kscope_flops = *m.measured_flops;
  EXPECT_GE(kscope_flops, expected_tensor * (1 - 1e-6));
  EXPECT_LT(kscope_flops, expected_tensor * 1.2);
  // MFU divides by the datasheet's dense peak (H100 SXM BF16: 989.4 TFLOP/s), whose clock is
  // that of ncu's dense 540,672 bf16 operations per cycle: 1.83 GHz; ncu's own peak, at the
  // base clock it locked, is shown beside it (not the path's sparse 1,081,344 per cycle).
  ASSERT_TRUE(m.peak.has_value() && m.ncu_peak.has_value());
  EXPECT_EQ(m.peak->precision, "Tensor BF16");
  EXPECT_EQ(m.peak->flops_per_s, 989.4e12);
  EXPECT_EQ(m.peak->source, "datasheet H100 SXM");
  EXPECT_NEAR(m.peak->clock_hz.value_or(0), 989.4e12 / 540672, 1e3);
  const double ncu_peak = m.ncu_peak->flops_per_s;
  EXPECT_NEAR(ncu_peak / 540672, m.ncu_peak->clock_hz.value_or(0), 1e3);
  EXPECT_GT(ncu_peak / 540672, 1.3e9);
  EXPECT_LT(ncu_peak / 540672, 2.0e9);
  ASSERT_TRUE(m.mfu_pct.has_value());
  EXPECT_NEAR(*m.mfu_pct, 100 * kscope_flops / (m.wall_ns * 1e-9) / 989.4e12, 1e-9);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kscope
