// nsys's GPU metrics sampling: the encoder-decoder's discovery export (H100, nsys 2025.3.1,
// --gpu-metrics-devices=0; README of tests/data/zoo says which samples it keeps) is imported
// into the run's gpu_metric stream, and the means over a stage's windows equal SQL's over the
// export's own rows.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/stages/stage_gpu_metrics.h"
#include "import/nsys/gpu_metrics_reader.h"
#include "util/sqlite.h"
#include "zoo_support.h"

namespace kscope {
namespace {

store::Store NewStore() { return std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value(); }

// SQL on the export: the samples of one metric (by the start of its name) whose time lies in
// one of the windows; their count and mean.
std::pair<int64_t, double> ExportMean(const std::string& metric, const std::vector<analysis::TimeWindow>& windows) {
  auto db = sql::Db::Open(testing::ZooFile("encdec_infer", "discovery.sqlite"), sql::OpenMode::kReadOnly);
  EXPECT_TRUE(db.ok());
  auto q = db->Prepare(
      "SELECT count(*), avg(g.value) FROM GPU_METRICS g JOIN TARGET_INFO_GPU_METRICS t "
      "ON t.typeId = g.typeId AND t.metricId = g.metricId WHERE t.metricName LIKE ?1 || '%' "
      "AND g.timestamp >= ?2 AND g.timestamp < ?3");
  EXPECT_TRUE(q.ok());
  int64_t n = 0;
  double sum = 0;
  for (const auto& w : windows) {
    q->Reset();
    q->Bind(1, metric).Bind(2, w.start).Bind(3, w.end);
    EXPECT_TRUE(q->Step());
    const int64_t k = q->Int(0);
    if (k > 0) sum += q->Double(1) * static_cast<double>(k);
    n += k;
  }
  return {n, n > 0 ? sum / static_cast<double>(n) : 0};
}

// The export's 'decode' ranges as windows.
std::vector<analysis::TimeWindow> DecodeRanges() {
  auto db = sql::Db::Open(testing::ZooFile("encdec_infer", "discovery.sqlite"), sql::OpenMode::kReadOnly);
  std::vector<analysis::TimeWindow> out;
  auto q = db->Prepare("SELECT start, end FROM NVTX_EVENTS WHERE text = 'decode' ORDER BY start");
  while (q->Step()) out.push_back({q->Int(0), q->Int(1)});
  return out;
}

TEST(GpuMetrics, ImportedSamplesAreTheExportsOwn) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "encdec_infer");
  ASSERT_GT(run, 0);
  auto samples = analysis::LoadGpuMetrics(store, run);
  ASSERT_TRUE(samples.ok()) << samples.error().Line();
  ASSERT_EQ(samples->by_source.size(), 1U);  // one GPU sampled
  const auto& metrics = samples->by_source.begin()->second;
  EXPECT_EQ(metrics.size(), import::nsys::KeptGpuMetrics().size());  // the clock is not kept
  EXPECT_EQ(metrics.count("GPC Clock Frequency [MHz]"), 0U);
  const std::vector<analysis::TimeWindow> everything{{INT64_MIN / 2, INT64_MAX / 2}};
  for (const auto& [name, series] : metrics) {
    const auto [n, mean] = ExportMean(name, everything);
    EXPECT_EQ(static_cast<int64_t>(series.time.size()), n) << name;
    EXPECT_TRUE(std::is_sorted(series.time.begin(), series.time.end())) << name;
  }
}

TEST(GpuMetrics, MeansOverTheDecodeRangesEqualSql) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "encdec_infer");
  ASSERT_GT(run, 0);
  auto samples = analysis::LoadGpuMetrics(store, run);
  ASSERT_TRUE(samples.ok());
  const auto windows = DecodeRanges();
  ASSERT_EQ(windows.size(), 3U);  // three requests
  const auto m = analysis::SampleOver(*samples, windows);
  ASSERT_TRUE(m.has_value());
  const auto [n, tensor] = ExportMean("Tensor Active", windows);
  EXPECT_EQ(m->samples, n);
  ASSERT_TRUE(m->tensor_active_pct.has_value());
  EXPECT_NEAR(*m->tensor_active_pct, tensor, 1e-9);
  EXPECT_NEAR(*m->sm_active_pct, ExportMean("SMs Active", windows).second, 1e-9);
  EXPECT_NEAR(*m->dram_read_pct, ExportMean("DRAM Read Bandwidth", windows).second, 1e-9);
  // Decode is launch-bound: the SMs are busy part of the time, the tensor pipes less.
  EXPECT_GT(*m->sm_active_pct, 0);
  EXPECT_LE(*m->tensor_active_pct, *m->sm_active_pct);
  // A window without samples has no figures.
  EXPECT_FALSE(analysis::SampleOver(*samples, {{1, 2}}).has_value());
}

}  // namespace
}  // namespace kscope
