// The timeline diagnosis on the devset's nsys exports: its figures against independent
// computations made with SQL on the export files, the Llama decode stage found launch-bound,
// the whole diagnosis against a golden file, and edge cases.
#include "analysis/timeline/timeline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <optional>

#include "analysis/names/api_names.h"
#include "import/import_files.h"
#include "test_support.h"
#include "timeline_printer.h"

namespace kscope {
namespace {

using analysis::TimeWindow;

// One devset export imported into an in-memory store, its timeline events loaded, and the
// export itself open for SQL.
struct Imported {
  std::optional<store::Store> store;
  int64_t run = 0;
  std::optional<analysis::TimelineEvents> events;
  mutable std::optional<sql::Db> export_db;  // SQL reads need a non-const connection
};

const Imported& Import(const std::string& name) {
  static std::map<std::string, Imported> cache;
  auto [it, added] = cache.try_emplace(name);
  if (!added) return it->second;
  Imported& r = it->second;
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  EXPECT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {testing::NsysData(name)}, {});
  EXPECT_TRUE(out.ok()) << out.error().Line();
  r.run = out->front().run_id;
  auto events = analysis::LoadTimelineEvents(*s, r.run);
  EXPECT_TRUE(events.ok()) << events.error().Line();
  r.events.emplace(std::move(*events));
  r.store.emplace(std::move(*s));
  auto db = sql::Db::Open(testing::NsysData(name), sql::OpenMode::kReadOnly);
  EXPECT_TRUE(db.ok());
  r.export_db.emplace(std::move(*db));
  return r;
}

// One row of integers from SQL on the export; ?1 and ?2 bound to the window's ends.
std::vector<int64_t> Row(const Imported& r, const std::string& query, TimeWindow w = {}) {
  auto q = r.export_db->Prepare(query);
  EXPECT_TRUE(q.ok()) << query;
  if (query.find("?1") != std::string::npos) q->Bind(1, w.start).Bind(2, w.end);
  std::vector<int64_t> row;
  if (q->Step()) {
    for (int c = 0; c < sqlite3_column_count(q->raw()); ++c) row.push_back(q->IsNull(c) ? 0 : q->Int(c));
  }
  return row;
}

TimeWindow NvtxRange(const Imported& r, const std::string& text) {
  auto row = Row(r, "SELECT start, end FROM NVTX_EVENTS WHERE text = '" + text + "'");
  return {row.at(0), row.at(1)};
}

analysis::TimelineDiagnosis Diagnose(const Imported& r, std::vector<TimeWindow> windows) {
  return analysis::DiagnoseTimeline(*r.events, windows, {});
}

// All GPU operations of the export (kernels, copies, sets) as SQL's one table.
const std::string kOps =
    "(SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY "
    "UNION ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMSET)";

TEST(Timeline, KernelCountsDurationsAndMediansMatchTheExport) {
  const Imported& r = Import("llama.sqlite");
  for (const TimeWindow w : {NvtxRange(r, "prefill"), NvtxRange(r, "decode"), TimeWindow{0, INT64_MAX}}) {
    const auto d = Diagnose(r, {w});
    const auto row = Row(r,
                         "SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                         "WHERE start >= ?1 AND start < ?2",
                         w);
    EXPECT_EQ(d.kernels, row[0]);
    EXPECT_EQ(d.kernel_ns, row[1]);
    // Median: the middle duration, or the mean of the two middle ones.
    const std::string middle = fmt::format("LIMIT {} OFFSET {}", 2 - row[0] % 2, (row[0] - 1) / 2);
    const auto mid = Row(r,
                         "SELECT sum(d), count(*) FROM (SELECT end - start AS d FROM CUPTI_ACTIVITY_KIND_KERNEL "
                         "WHERE start >= ?1 AND start < ?2 ORDER BY d " +
                             middle + ")",
                         w);
    EXPECT_DOUBLE_EQ(d.median_kernel_us, static_cast<double>(mid[0]) / static_cast<double>(mid[1]) / 1000);
  }
}

TEST(Timeline, CopiesMatchTheExport) {
  const Imported& r = Import("llama.sqlite");
  const auto d = Diagnose(r, {});
  const auto htod = Row(r,
                        "SELECT count(*), sum(bytes), sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                        "WHERE copyKind = 1");
  EXPECT_EQ(std::vector<int64_t>({d.copies.htod.count, d.copies.htod.bytes, d.copies.htod.ns}), htod);
  EXPECT_EQ(htod[0], 41);
  for (int kind : {2, 8, 10}) {
    EXPECT_EQ(Row(r, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = " + std::to_string(kind))[0], 0);
  }
  EXPECT_EQ(d.copies.dtoh.count + d.copies.dtod.count + d.copies.ptop.count + d.copies.other.count, 0);
  const auto memset = Row(r, "SELECT count(*), sum(bytes), sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMSET");
  EXPECT_EQ(std::vector<int64_t>({d.copies.memset.count, d.copies.memset.bytes, d.copies.memset.ns}), memset);
  // Pageable: the host side is ENUM_CUDA_MEM_KIND 0; pinned 1.
  EXPECT_EQ(Row(r, "SELECT label FROM ENUM_CUDA_MEM_KIND WHERE id = 0").size(), 1U);
  const auto pageable = Row(r,
                            "SELECT count(*), sum(bytes), sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                            "WHERE srcKind = 0 OR dstKind = 0");
  EXPECT_EQ(std::vector<int64_t>({d.copies.pageable.count, d.copies.pageable.bytes, d.copies.pageable.ns}), pageable);
  const auto pinned = Row(r,
                          "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE (srcKind = 1 OR dstKind = 1) "
                          "AND srcKind <> 0 AND dstKind <> 0");
  EXPECT_EQ(d.copies.pinned.count, pinned[0]);
  EXPECT_EQ(d.memops, 51);
  // The copies do not overlap one another (one stream): their busy time is their summed time.
  EXPECT_EQ(d.copies.host_device_busy_ns, htod[2]);
  EXPECT_EQ(d.copies.pageable_busy_ns, pageable[2]);
}

// Busy time and bins on small windows, against a bitmap with one entry per nanosecond.
TEST(Timeline, BusyTimeAndBinsMatchANaiveBitmap) {
  const Imported& r = Import("llama.sqlite");
  const int64_t prefill_kernel =
      Row(r, "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start >= ?1", NvtxRange(r, "prefill"))[0];
  const int64_t copy = Row(r, "SELECT start FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY start LIMIT 1 OFFSET 1")[0];
  const std::vector<TimeWindow> windows = {{NvtxRange(r, "decode").start, NvtxRange(r, "decode").start + 2'000'000},
                                           {prefill_kernel - 1'000, prefill_kernel + 1'500'000},
                                           {copy - 3, copy + 6'000'007}};
  int64_t total = 0;
  for (const TimeWindow w : windows) {
    std::vector<bool> busy(static_cast<size_t>(w.end - w.start), false);
    auto q = r.export_db->Prepare("SELECT start, end FROM " + kOps + " WHERE start < ?2 AND end > ?1");
    ASSERT_TRUE(q.ok());
    q->Bind(1, w.start).Bind(2, w.end);
    int64_t ops = 0;
    while (q->Step()) {
      ++ops;
      for (int64_t t = std::max(q->Int(0), w.start); t < std::min(q->Int(1), w.end); ++t) busy[t - w.start] = true;
    }
    EXPECT_GE(ops, 4);
    const auto d = analysis::DiagnoseTimeline(*r.events, std::vector<TimeWindow>{w}, {.bins = 10});
    EXPECT_EQ(d.gpu_busy_ns, std::count(busy.begin(), busy.end(), true));
    ASSERT_EQ(d.bins.size(), 10U);
    const int64_t len = (w.end - w.start) / 10;  // the windows divide by 10
    for (int64_t b = 0; b < 10; ++b) {
      const auto n = std::count(busy.begin() + b * len, busy.begin() + (b + 1) * len, true);
      EXPECT_EQ(d.bins[b].start, w.start + b * len);
      EXPECT_EQ(d.bins[b].end, w.start + (b + 1) * len);
      EXPECT_DOUBLE_EQ(d.bins[b].busy_pct, 100.0 * static_cast<double>(n) / static_cast<double>(len));
    }
    total += d.gpu_busy_ns;
  }
  // All three at once, given out of order: the busy time adds up.
  const std::vector<TimeWindow> shuffled = {windows[2], windows[0], windows[1]};
  const auto all = Diagnose(r, shuffled);
  EXPECT_EQ(all.gpu_busy_ns, total);
  EXPECT_EQ(all.wall_ns, 2'000'000 + 1'501'000 + 6'000'010);
  EXPECT_EQ(all.windows.size(), 3U);
}

// The whole run's busy time and largest gaps, against a sweep in SQL: a window function
// carries the latest end seen so far; where the next start lies beyond it, the GPU is idle.
TEST(Timeline, BusyTimeAndGapsMatchASweepInSql) {
  const Imported& r = Import("llama.sqlite");
  const TimeWindow span = {Row(r, "SELECT min(s) FROM (SELECT min(start) s FROM " + kOps +
                                      " UNION ALL SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME)")[0],
                           Row(r, "SELECT max(e) FROM (SELECT max(end) e FROM " + kOps +
                                      " UNION ALL SELECT max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME)")[0]};
  const std::string gaps =
      "(SELECT start - prev_end AS len, prev_end AS gs, start AS ge FROM (SELECT start, max(end) OVER (ORDER BY start, "
      "end ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end FROM " +
      kOps + ") WHERE start > prev_end)";
  const int64_t interior_idle = Row(r, "SELECT sum(len) FROM " + gaps)[0];
  const auto ends = Row(r, "SELECT min(start), max(end) FROM " + kOps);
  const auto d = Diagnose(r, {});
  ASSERT_EQ(d.windows.size(), 1U);
  EXPECT_EQ(d.windows[0].start, span.start);
  EXPECT_EQ(d.windows[0].end, span.end);
  EXPECT_EQ(d.wall_ns - d.gpu_busy_ns, interior_idle + (ends[0] - span.start) + (span.end - ends[1]));
  const auto largest = Row(r, "SELECT len, gs, ge FROM " + gaps + " ORDER BY len DESC LIMIT 1");
  ASSERT_FALSE(d.largest_gaps.empty());
  EXPECT_EQ(d.largest_gaps[0].start, largest[1]);
  EXPECT_EQ(d.largest_gaps[0].end, largest[2]);
  const auto long_gaps = Row(r, "SELECT count(*), sum(len) FROM " + gaps + " WHERE len >= 100000");
  // The edge gaps: before the first GPU operation (CUDA initialization) and after the last.
  EXPECT_EQ(d.long_gaps, long_gaps[0] + 2);
  EXPECT_EQ(d.long_gap_ns, long_gaps[1] + (ends[0] - span.start) + (span.end - ends[1]));

  // What the host did in the largest gap, function by function.
  const TimeWindow g{d.largest_gaps[0].start, d.largest_gaps[0].end};
  auto q = r.export_db->Prepare(
      "SELECT s.value, count(*), sum(min(r.end, ?2) - max(r.start, ?1)) AS ns FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
      "JOIN StringIds s ON s.id = r.nameId WHERE r.start < ?2 AND r.end > ?1 GROUP BY 1 ORDER BY ns DESC, 1 LIMIT 5");
  ASSERT_TRUE(q.ok());
  q->Bind(1, g.start).Bind(2, g.end);
  std::string expected, got;
  while (q->Step()) expected += fmt::format("{} {} {}\n", analysis::ApiDisplayName(q->Text(0)), q->Int(1), q->Int(2));
  for (const auto& h : d.largest_gaps[0].host) got += fmt::format("{} {} {}\n", h.api, h.calls, h.ns);
  EXPECT_EQ(got, expected);
  EXPECT_FALSE(got.empty());

  // Synchronizing calls: one thread, so the union is the sum.
  const auto sync = Row(r,
                        "SELECT count(*), sum(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
                        "ON s.id = r.nameId WHERE s.value LIKE '%Synchronize%' OR s.value LIKE 'cudaMemcpy\\_%' "
                        "ESCAPE '\\'");
  EXPECT_EQ(d.sync_ns, sync[1]);
  int64_t sync_calls = 0;
  for (const auto& h : d.synchronizations) sync_calls += h.calls;
  EXPECT_EQ(sync_calls, sync[0]);
}

// The devset's check: the decode stage of the Llama run is launch-bound, the GPU mostly idle
// (2,992 GPU operations in 1.6 s of wall time).
TEST(Timeline, LlamaDecodeIsLaunchBoundWithTheGpuMostlyIdle) {
  const Imported& r = Import("llama.sqlite");
  const auto d = Diagnose(r, {NvtxRange(r, "decode")});
  EXPECT_EQ(d.kernels + d.memops, 2992);
  EXPECT_EQ(d.wall_ns, 1'599'860'375);
  EXPECT_LT(d.gpu_busy_pct, 1.0);
  ASSERT_FALSE(d.findings.empty());
  const analysis::Finding& f = d.findings.front();
  EXPECT_EQ(f.kind, "launch_bound");
  EXPECT_EQ(f.title, "Launch-bound: 2,992 GPU operations in 1.60 s, the GPU idle 99.6% of the time");
  EXPECT_NE(f.fix.find("CUDA graph"), std::string::npos);
  EXPECT_NE(f.fix.find("torch.compile"), std::string::npos);
}

TEST(Timeline, DiagnosisEqualsTheGoldenFile) {
  const Imported& llama = Import("llama.sqlite");
  const Imported& tiny = Import("tiny_cuda.sqlite");
  std::string out = testing::PrintTimeline("llama.sqlite: whole run", Diagnose(llama, {}));
  out += testing::PrintTimeline("llama.sqlite: decode", Diagnose(llama, {NvtxRange(llama, "decode")}));
  out += testing::PrintTimeline("llama.sqlite: prefill and decode",
                                Diagnose(llama, {NvtxRange(llama, "prefill"), NvtxRange(llama, "decode")}));
  out += testing::PrintTimeline("tiny_cuda.sqlite: whole run", Diagnose(tiny, {}));
  const std::string golden = std::string(KSCOPE_TEST_DATA_DIR) + "/timeline/diagnosis.txt";
  if (out != testing::ReadFile(golden)) {
    const std::string actual = "timeline_diagnosis.actual.txt";
    std::ofstream(actual) << out;
    ADD_FAILURE() << "differs from " << golden << "; what came out is in " << actual;
  }
}

TEST(Timeline, EmptyWindowGivesAnEmptyDiagnosis) {
  const Imported& r = Import("llama.sqlite");
  const int64_t t = NvtxRange(r, "decode").start;
  const auto d = Diagnose(r, {{t, t}, {t + 5, t}});
  EXPECT_TRUE(d.windows.empty());
  EXPECT_EQ(d.wall_ns, 0);
  EXPECT_EQ(d.gpu_busy_ns, 0);
  EXPECT_EQ(d.gpu_busy_pct, 0);
  EXPECT_EQ(d.kernels + d.memops, 0);
  EXPECT_EQ(d.launches_per_s, 0);
  EXPECT_TRUE(d.bins.empty());
  EXPECT_TRUE(d.largest_gaps.empty());
  EXPECT_TRUE(d.findings.empty());
}

TEST(Timeline, WindowOutsideTheRunIsOneIdleGap) {
  const Imported& r = Import("tiny_cuda.sqlite");
  const int64_t end = r.events->span.end;
  const auto d = Diagnose(r, {{end + 1'000'000'000, end + 2'000'000'000}});
  EXPECT_EQ(d.wall_ns, 1'000'000'000);
  EXPECT_EQ(d.gpu_busy_ns, 0);
  EXPECT_EQ(d.kernels + d.memops, 0);
  EXPECT_EQ(d.median_kernel_us, 0);
  EXPECT_EQ(d.mean_launch_interval_us, 0);
  ASSERT_EQ(d.bins.size(), 200U);
  EXPECT_EQ(d.bins.front().start, end + 1'000'000'000);
  EXPECT_EQ(d.bins.back().end, end + 2'000'000'000);
  ASSERT_EQ(d.largest_gaps.size(), 1U);
  EXPECT_TRUE(d.largest_gaps[0].host.empty());
  ASSERT_EQ(d.findings.size(), 1U);
  EXPECT_EQ(d.findings[0].kind, "gpu_idle");
  EXPECT_EQ(d.findings[0].title, "GPU idle 100.0% of the time in 1 gap of 100.0 us or more");
}

// tiny_cuda's run with its memory operations taken out of the store: a run without memops.
TEST(Timeline, RunWithoutMemops) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {testing::NsysData("tiny_cuda.sqlite")}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  const int64_t run = out->front().run_id;
  ASSERT_TRUE(s->db().Exec("DELETE FROM event_chunk WHERE stream = 'memop'").ok());
  auto events = analysis::LoadTimelineEvents(*s, run);
  ASSERT_TRUE(events.ok()) << events.error().Line();
  EXPECT_TRUE(events->memops.start.empty());
  const auto d = analysis::DiagnoseTimeline(*events, {}, {});
  EXPECT_EQ(d.memops, 0);
  EXPECT_EQ(d.kernels, 9);
  EXPECT_EQ(d.copies.memset.count, 0);
  EXPECT_EQ(d.copies.host_device_busy_ns, 0);
  // Kernels run back to back on one stream: busy is their summed time.
  const auto& tiny = Import("tiny_cuda.sqlite");
  EXPECT_EQ(d.gpu_busy_ns, Row(tiny, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0]);
  EXPECT_EQ(d.kernel_ns, d.gpu_busy_ns);
}

TEST(Timeline, SynchronizingCallsByName) {
  for (const char* name : {"cudaDeviceSynchronize_v3020", "cudaStreamSynchronize_v3020", "cudaEventSynchronize",
                           "cuCtxSynchronize", "cuStreamSynchronize_ptsz", "cudaMemcpy_v3020", "cuMemcpyDtoH_v2",
                           "cudaMemcpy2D_v3020", "cudaMemcpyFromSymbol_v3020"}) {
    EXPECT_TRUE(analysis::SynchronizesHost(name)) << name;
  }
  for (const char* name : {"cudaMemcpyAsync_v3020", "cuMemcpyHtoDAsync_v2", "cudaLaunchKernel_v7000",
                           "cudaStreamWaitEvent_v3020", "cudaMemsetAsync_v3020", "cudaEventQuery"}) {
    EXPECT_FALSE(analysis::SynchronizesHost(name)) << name;
  }
  EXPECT_EQ(analysis::ApiDisplayName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(analysis::ApiDisplayName("cuMemcpyDtoH_v2"), "cuMemcpyDtoH_v2");
}

}  // namespace
}  // namespace kscope
