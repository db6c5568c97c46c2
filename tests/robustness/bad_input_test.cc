// Bad inputs, made at test time from the real tiny_cuda export: each import fails with one
// exact line naming the file, and a store that already held a good run is left byte for byte
// as it was. Bad rows in a good file are skipped, recorded and counted instead.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>

#include "import/import_files.h"
#include "report/nsys_stats.h"
#include "robustness/bad_input_fixture.h"
#include "store/store.h"
#include "test_support.h"
#include "util/sqlite.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

using testing::BadInput;
using testing::Edit;
using testing::kTiny;
using testing::ReadFile;
using testing::WriteBytes;

int64_t RootPage(const std::string& path, const std::string& table) {
  auto db = sql::Db::Open(path, sql::OpenMode::kReadOnly);
  EXPECT_TRUE(db.ok());
  auto q = db->Prepare("SELECT rootpage FROM sqlite_master WHERE name = ?1");
  EXPECT_TRUE(q.ok());
  q->Bind(1, table);
  return q->Step() ? q->Int(0) : -1;
}

// Overwrites the 4 KiB root page of `table` in `path` with garbage; returns the page number.
int64_t FillRootPage(const std::string& path, const std::string& table) {
  const int64_t page = RootPage(path, table);
  std::string bytes = ReadFile(path);
  bytes.replace(static_cast<size_t>(page - 1) * 4096, 4096, std::string(4096, '\xa5'));
  WriteBytes(path, bytes);
  return page;
}

TEST_F(BadInput, TruncatedAtHalf) {
  const std::string p = Path("half.sqlite");
  const std::string tiny = ReadFile(kTiny);
  ASSERT_EQ(tiny.size(), 356352U);
  WriteBytes(p, tiny.substr(0, tiny.size() / 2));
  ExpectRejected(p, "kscope: error: " + p +
                        ": truncated: the SQLite header says 356352 bytes, the file has 178176; copy or export the "
                        "file again");
}

TEST_F(BadInput, TruncatedInsideTheHeader) {
  const std::string p = Path("header.sqlite");
  WriteBytes(p, ReadFile(kTiny).substr(0, 50));
  ExpectRejected(p,
                 "kscope: error: " + p +
                     ": truncated: 50 bytes, shorter than the 100-byte SQLite header; copy or export the file again");
}

TEST_F(BadInput, EmptyFile) {
  const std::string p = Path("empty.sqlite");
  WriteBytes(p, "");
  ExpectRejected(p, "kscope: error: " + p +
                        ": an empty nsys export (0 bytes); export the report again: nsys export --type sqlite -o "
                        "FILE.sqlite REPORT.nsys-rep");
}

// Garbage over a page the importer reads after the kernels: SQLite reports the corruption
// halfway through the import, after kernel chunks were written, and all of it rolls back.
TEST_F(BadInput, CorruptPageInTheMiddle) {
  const std::string p = CopyOfTiny("corrupt.sqlite");
  ASSERT_EQ(FillRootPage(p, "CUPTI_ACTIVITY_KIND_RUNTIME"), 25);
  ExpectRejected(p, "kscope: error: " + p +
                        ": corrupt SQLite file while reading CUPTI_ACTIVITY_KIND_RUNTIME (database disk image is "
                        "malformed); copy or export it again");
}

TEST_F(BadInput, CorruptStringTable) {
  const std::string p = CopyOfTiny("corrupt_strings.sqlite");
  ASSERT_EQ(FillRootPage(p, "StringIds"), 2);
  ExpectRejected(p, "kscope: error: " + p +
                        ": corrupt SQLite file while reading StringIds (database disk image is malformed); copy or "
                        "export it again");
}

TEST_F(BadInput, ExportWithoutStringTable) {
  const std::string p = CopyOfTiny("no_strings.sqlite");
  Edit(p, "DROP TABLE StringIds");
  ExpectRejected(p, "kscope: error: " + p + ": nsys export without a StringIds table; export the report again");
}

TEST_F(BadInput, CsvFile) {
  const std::string p = Path("kernels.csv");
  WriteBytes(p, "Time (%),Total Time (ns),Instances,Name\n64.7,506297,8,saxpy\n");
  ExpectRejected(p, "kscope: error: " + p +
                        ": not a format kscope imports (an nsys SQLite export, a PyTorch profiler trace, an ncu report "
                        "or its CSV pages); export one with: nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep, "
                        "or ncu --import "
                        "REPORT.ncu-rep --page raw --csv > FILE.csv");
}

TEST_F(BadInput, RandomBinary) {
  const std::string p = Path("random.bin");
  std::mt19937 gen(42);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(gen() & 0xff);
  WriteBytes(p, bytes);
  ExpectRejected(p, "kscope: error: " + p +
                        ": not a format kscope imports (an nsys SQLite export, a PyTorch profiler trace, an ncu report "
                        "or its CSV pages); export one with: nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep, "
                        "or ncu --import "
                        "REPORT.ncu-rep --page raw --csv > FILE.csv");
}

TEST_F(BadInput, SqliteDatabaseThatIsNotAnExport) {
  const std::string p = Path("other.sqlite");
  {
    auto db = sql::Db::Open(p, sql::OpenMode::kCreate);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        db->Exec("CREATE TABLE kernels (name TEXT, ns INTEGER); INSERT INTO kernels VALUES ('saxpy', 1);").ok());
  }
  ExpectRejected(p, "kscope: error: " + p +
                        ": an SQLite database, but not an nsys export (it has no META_DATA_EXPORT table); export the "
                        "report with: nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep");
}

TEST_F(BadInput, ExportSchemaVersionFour) {
  const std::string p = CopyOfTiny("v4.sqlite");
  Edit(p, "UPDATE META_DATA_EXPORT SET value = '4.0.0' WHERE name = 'EXPORT_SCHEMA_VERSION'");
  ExpectRejected(p, "kscope: error: " + p +
                        ": nsys export schema version 4.0.0 is not one kscope reads (3.x); export the report with an "
                        "nsys whose export schema is 3.x (2023.1 to 2025.x), or update kscope");
}

TEST_F(BadInput, NsysReportFile) {
  const std::string p = Path("profile.nsys-rep");
  std::string bytes(1024, '\x07');
  WriteBytes(p, bytes);
  ExpectRejected(p, "kscope: error: " + p +
                        ": an nsys report file, not its SQLite export; export it first: nsys export --type sqlite -o "
                        "FILE.sqlite " +
                        p);
}

TEST_F(BadInput, MissingFile) {
  const std::string p = Path("missing.sqlite");
  ExpectRejected(p, "kscope: error: " + p + ": no such file; check the path");
}

TEST_F(BadInput, Directory) {
  const std::string p = Path("a_directory");
  fs::create_directories(p);
  ExpectRejected(p, "kscope: error: " + p + ": is a directory, not a file; name the export file itself");
}

// One kernel that ends before it starts and one whose name is not in StringIds: both are
// skipped and recorded, and the other seven kernels make the report.
TEST_F(BadInput, BadRowsInAGoodFileAreSkippedAndRecorded) {
  const std::string p = CopyOfTiny("bad_rows.sqlite");
  Edit(p,
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 1 WHERE rowid = 2;"
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 999999 WHERE rowid = 3;");
  auto s = store::Store::Open(db_, sql::OpenMode::kReadWrite);
  ASSERT_TRUE(s.ok()) << s.error().Line();
  auto out = import::ImportFiles(*s, {p}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  ASSERT_EQ(out->size(), 1U);
  const int64_t run = out->front().run_id;
  EXPECT_EQ(run, 2);
  EXPECT_EQ(out->front().rows_skipped, 2);
  EXPECT_EQ(out->front().rows_read, 47 - 2);  // 9 kernels, 32 API calls, 4 memsets, 2 NVTX ranges
  EXPECT_EQ(*s->StreamRows(run, "kernel"), 7);

  auto q = s->db().Prepare("SELECT location, what, raw FROM import_problem WHERE run_id = ?1 ORDER BY id");
  ASSERT_TRUE(q.ok());
  q->Bind(1, run);
  ASSERT_TRUE(q->Step());
  EXPECT_EQ(q->Text(0), "CUPTI_ACTIVITY_KIND_KERNEL rowid 2");
  EXPECT_EQ(q->Text(1), "ends before it starts");
  EXPECT_EQ(q->Text(2), "start=487393190 end=487393189");
  ASSERT_TRUE(q->Step());
  EXPECT_EQ(q->Text(0), "CUPTI_ACTIVITY_KIND_KERNEL rowid 3");
  EXPECT_EQ(q->Text(1), "demangledName is not in StringIds");
  EXPECT_EQ(q->Text(2), "999999");
  EXPECT_FALSE(q->Step());

  auto files = s->db().Prepare("SELECT rows_read, rows_skipped FROM source_file WHERE run_id = ?1");
  ASSERT_TRUE(files.ok());
  files->Bind(1, run);
  ASSERT_TRUE(files->Step());
  EXPECT_EQ(files->Int(0), 45);
  EXPECT_EQ(files->Int(1), 2);

  // saxpy without rows 2 and 3 (62591 and 63615 ns): 64703, 61919, 63264, 63967, 62431, 63807.
  auto table = report::BuildNsysReport(*s, run, "cuda_gpu_kern_sum");
  ASSERT_TRUE(table.ok()) << table.error().Line();
  std::ostringstream csv;
  report::WriteCsv(*table, csv);
  EXPECT_EQ(csv.str(),
            "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
            "57.9,380091,6,63348.5,63535.5,61919,64703,1031.5,\"saxpy(int, float, const float *, float *)\"\n"
            "42.1,276028,1,276028.0,276028.0,276028,276028,0.0,\"void tiled_gemm<(int)16>(int, const float *, const "
            "float *, float *)\"\n");
}

}  // namespace
}  // namespace kscope
