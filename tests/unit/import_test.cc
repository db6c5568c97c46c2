// Importing the devset's real nsys exports: what lands in the store, and that a failed
// import leaves it exactly as it was.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/nsys_summaries.h"
#include "import/import_files.h"
#include "report/nsys_stats.h"
#include "store/event_reader.h"
#include "store/event_streams.h"
#include "test_support.h"

namespace kscope {
namespace {

const std::string kData = testing::NsysData("");

int64_t Count(store::Store& s, const std::string& sql) {
  auto q = s.db().Prepare(sql);
  EXPECT_TRUE(q.ok());
  return q->Step() ? q->Int(0) : -1;
}

TEST(NsysImport, LlamaExportLandsWhole) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {kData + "llama.sqlite"}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  const int64_t run = out->front().run_id;
  // The export's own row counts: 3,778 kernels, 10,544 API calls, 41 + 10 memory
  // operations, 2 NVTX ranges.
  EXPECT_EQ(*s->StreamRows(run, "kernel"), 3778);
  EXPECT_EQ(*s->StreamRows(run, "api_call"), 10544);
  EXPECT_EQ(*s->StreamRows(run, "memop"), 51);
  EXPECT_EQ(*s->StreamRows(run, "nvtx_range"), 2);
  EXPECT_EQ(out->front().rows_read, 3778 + 10544 + 51 + 2);
  EXPECT_EQ(out->front().rows_skipped, 0);

  auto info = s->GetRun(run);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->manifest.gpu, "NVIDIA H200");
  EXPECT_EQ(info->manifest.driver, "580.159.04");
  EXPECT_EQ(info->manifest.cuda_version, "13.0");
  EXPECT_EQ(info->manifest.nsys_export_version, "2025.3.2.0");  // the export's EXPORT_PRODUCT_VERSION
  EXPECT_EQ(info->manifest.nsys_tool_version, std::nullopt);    // kscope ran no nsys
  EXPECT_EQ(info->manifest.command, "python3 llama_workload.py 4 2 128 16 /tmp/dev/llama_torch");
  auto q = s->db().Prepare("SELECT format, format_version, rows_read, rows_skipped FROM source_file");
  ASSERT_TRUE(q.ok() && q->Step());
  EXPECT_EQ(q->Text(0), "nsys-sqlite");
  EXPECT_EQ(q->Text(1), "3.20.3");
  EXPECT_EQ(q->Int(2), 3778 + 10544 + 51 + 2);
  EXPECT_EQ(q->Int(3), 0);
}

// Every nsys report of a run, as CSV.
std::vector<std::string> AllReportsCsv(store::Store& s, int64_t run) {
  std::vector<std::string> out;
  for (auto r : report::NsysReportNames()) out.push_back(testing::ReportCsv(s, run, r));
  return out;
}

// The stored events are complete: summaries derived again from the store, instead of from
// what the import streamed, give every report exactly as before.
TEST(NsysImport, SummariesFromStoredEventsEqualThoseOfTheImport) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {kData + "llama.sqlite"}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  const int64_t run = out->front().run_id;
  const std::vector<std::string> before = AllReportsCsv(*s, run);
  auto events = analysis::LoadNsysEvents(*s, run);
  ASSERT_TRUE(events.ok()) << events.error().Line();
  EXPECT_EQ(events->kernels.start.size(), 3778U);
  EXPECT_EQ(events->api.start.size(), 10544U);
  ASSERT_TRUE(analysis::MaterializeNsysSummaries(*s, run, *events).ok());
  EXPECT_EQ(AllReportsCsv(*s, run), before);
}

TEST(NsysImport, KernelColumnsRoundTripFromTheExport) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {kData + "tiny_cuda.sqlite"}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  namespace k = store::kernel;
  auto cols = store::ReadColumns(s->db(), out->front().run_id, store::kKernelStream,
                                 {k::kStart, k::kEnd, k::kCorrelation, k::kGridX, k::kBlockX, k::kRegisters,
                                  k::kStaticSmem, k::kStream, k::kName});
  ASSERT_TRUE(cols.ok());
  // The tiled GEMM as nsys's cuda_gpu_trace prints it: start 487524324, 276028 ns,
  // correlation 137, grid 64x64x1, block 16x16x1, 32 registers, 2048 B static shared memory.
  const auto& c = *cols;
  size_t gemm = c[0].size();
  for (size_t i = 0; i < c[0].size(); ++i) {
    if (c[0][i] == 487524324) gemm = i;
  }
  ASSERT_LT(gemm, c[0].size());
  EXPECT_EQ(c[1][gemm] - c[0][gemm], 276028);
  EXPECT_EQ(c[2][gemm], 137);
  EXPECT_EQ(c[3][gemm], 64);
  EXPECT_EQ(c[4][gemm], 16);
  EXPECT_EQ(c[5][gemm], 32);
  EXPECT_EQ(c[6][gemm], 2048);
  EXPECT_EQ(c[7][gemm], 7);
  auto names = s->Strings({c[8][gemm]});
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->at(c[8][gemm]), "void tiled_gemm<(int)16>(int, const float *, const float *, float *)");
}

TEST(NsysImport, ManifestKeepsWhatTheUserSaysAndWhatTheExportSays) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  import::ImportOptions options;
  options.manifest.label = "tiny";
  options.manifest.model = "tiny_cuda";
  options.manifest.dtype = "fp32";
  options.manifest.batch = 1;
  options.manifest.tokens = 0;
  options.manifest.tags = {{"seed", "1"}, {"host", "h200"}};
  auto out = import::ImportFiles(*s, {kData + "tiny_cuda.sqlite"}, options);
  ASSERT_TRUE(out.ok()) << out.error().Line();
  auto runs = s->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1U);
  const store::RunInfo& r = runs->front();
  EXPECT_EQ(r.manifest.label, "tiny");
  EXPECT_EQ(r.manifest.model, "tiny_cuda");
  EXPECT_EQ(r.manifest.dtype, "fp32");
  EXPECT_EQ(r.manifest.batch, 1);
  EXPECT_EQ(r.manifest.tokens, 0);
  EXPECT_EQ(r.manifest.tags, (std::map<std::string, std::string>{{"host", "h200"}, {"seed", "1"}}));
  EXPECT_EQ(r.manifest.gpu, "NVIDIA H200");
  EXPECT_EQ(r.manifest.command, "/tmp/dev/tiny_cuda");
  EXPECT_EQ(r.kernels, 9);
  EXPECT_EQ(r.api_calls, 32);
  EXPECT_EQ(r.imported_at.size(), std::string("2026-11-22T04:30:12Z").size());
}

// The stored streams keep the export's rowid order whatever the number of reader threads
// (slices finish in any order): a row number means the same launch in every import.
TEST(NsysImport, StoredRowsFollowTheExportWhateverTheThreads) {
  auto db = sql::Db::Open(kData + "llama.sqlite", sql::OpenMode::kReadOnly);
  ASSERT_TRUE(db.ok());
  std::vector<int64_t> kernels, calls;
  auto q = db->Prepare("SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid");
  while (q->Step()) kernels.push_back(q->Int(0));
  auto r = db->Prepare("SELECT start FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid");
  while (r->Step()) calls.push_back(r->Int(0));
  for (size_t threads : {2, 5, 16}) {
    auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok());
    import::ImportOptions options;
    options.threads = threads;
    auto out = import::ImportFiles(*s, {kData + "llama.sqlite"}, options);
    ASSERT_TRUE(out.ok());
    auto k = store::ReadColumns(s->db(), out->front().run_id, store::kKernelStream, {store::kernel::kStart});
    auto a = store::ReadColumns(s->db(), out->front().run_id, store::kApiStream, {store::api::kStart});
    ASSERT_TRUE(k.ok() && a.ok());
    EXPECT_EQ((*k)[0], kernels) << threads << " threads";
    EXPECT_EQ((*a)[0], calls) << threads << " threads";
  }
}

TEST(NsysImport, SeveralFilesMakeOneRunUnlessAskedOtherwise) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  const std::string copy = (std::filesystem::temp_directory_path() / "kscope_import_test_copy.sqlite").string();
  std::filesystem::copy_file(kData + "tiny_cuda.sqlite", copy, std::filesystem::copy_options::overwrite_existing);
  auto one = import::ImportFiles(*s, {kData + "tiny_cuda.sqlite", copy}, {});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)[0].run_id, (*one)[1].run_id);
  import::ImportOptions each;
  each.run_per_file = true;
  auto two = import::ImportFiles(*s, {kData + "tiny_cuda.sqlite", copy}, each);
  std::filesystem::remove(copy);
  ASSERT_TRUE(two.ok());
  EXPECT_NE((*two)[0].run_id, (*two)[1].run_id);
  EXPECT_EQ(Count(*s, "SELECT count(*) FROM run"), 3);
}

TEST(NsysImport, OneFileNamedTwiceIsRefusedBeforeAnythingIsWritten) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  // The second name is the same file by another path.
  auto twice = import::ImportFiles(*s, {kData + "tiny_cuda.sqlite", kData + "../nsys/tiny_cuda.sqlite"}, {});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().Line(), "kscope: error: " + kData +
                                      "../nsys/tiny_cuda.sqlite: named twice in one import (its events would be "
                                      "counted twice); name each file once");
  EXPECT_EQ(Count(*s, "SELECT count(*) FROM run"), 0);
}

// kscope import asks for this unless --force; kscope profile, which imports its own fresh
// export, does not.
TEST(NsysImport, AFileAlreadyImportedIsRefusedWhenAsked) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  import::ImportOptions refuse;
  refuse.refuse_known_content = true;
  ASSERT_TRUE(import::ImportFiles(*s, {kData + "tiny_cuda.sqlite"}, refuse).ok());
  // A copy by another name holds the same content.
  const std::string copy = (std::filesystem::temp_directory_path() / "kscope_import_test_again.sqlite").string();
  std::filesystem::copy_file(kData + "tiny_cuda.sqlite", copy, std::filesystem::copy_options::overwrite_existing);
  auto again = import::ImportFiles(*s, {copy}, refuse);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().Line(), "kscope: error: " + copy +
                                      ": already imported as run 1 (a file of the same content); use run 1, or import "
                                      "it again with --force");
  EXPECT_EQ(Count(*s, "SELECT count(*) FROM run"), 1);
  auto forced = import::ImportFiles(*s, {copy}, {});
  std::filesystem::remove(copy);
  ASSERT_TRUE(forced.ok()) << forced.error().Line();
  EXPECT_EQ(forced->front().run_id, 2);
  EXPECT_EQ(Count(*s, "SELECT count(DISTINCT content_hash) FROM source_file"), 1);
}

TEST(NsysImport, AFailingFileRollsBackTheWholeImport) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(import::ImportFiles(*s, {kData + "tiny_cuda.sqlite"}, {}).ok());
  const int64_t chunks = Count(*s, "SELECT count(*) FROM event_chunk");
  // The second file is a kscope test source, not an export: nothing of the first may stay.
  auto bad = import::ImportFiles(*s, {kData + "tiny_cuda.sqlite", kData + "tiny_cuda.cu"}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Count(*s, "SELECT count(*) FROM run"), 1);
  EXPECT_EQ(Count(*s, "SELECT count(*) FROM event_chunk"), chunks);
}

}  // namespace
}  // namespace kscope
