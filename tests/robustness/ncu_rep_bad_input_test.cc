// Bad .ncu-rep files, made at test time from a real report: empty, cut off at several
// places, corrupted, of an unknown version, or not a report at all. Each import fails with
// one exact line naming the file, and a store that already held a good run is left byte for
// byte as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "import/import_files.h"
#include "import/ncu/rep_reader.h"
#include "recorded_runner.h"
#include "store/store.h"
#include "test_support.h"
#include "util/sqlite.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

class NcuRepBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kscope_rep_bad_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    report_ = testing::Unzstd(std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/tiny_cuda_basic.ncu-rep.zst");
    ASSERT_EQ(report_.size(), 526416U);
    db_ = Path("kscope.db");
    {
      auto s = store::Store::Open(db_, sql::OpenMode::kCreate);
      ASSERT_TRUE(s.ok()) << s.error().Line();
      auto out = import::ImportFiles(*s, {testing::NsysData("tiny_cuda.sqlite")}, {});
      ASSERT_TRUE(out.ok()) << out.error().Line();
    }
    before_ = testing::ReadFile(db_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string p = Path(name);
    std::ofstream(p, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }

  // Importing `path` into the run of the store fails with exactly `line`; the store is unchanged.
  void ExpectRejected(const std::string& path, const std::string& line) {
    {
      auto s = store::Store::Open(db_, sql::OpenMode::kReadWrite);
      ASSERT_TRUE(s.ok()) << s.error().Line();
      import::ImportOptions options;
      options.into_run = 1;
      auto out = import::ImportFiles(*s, {path}, options);
      ASSERT_FALSE(out.ok());
      EXPECT_EQ(out.error().Line(), line);
    }
    EXPECT_FALSE(fs::exists(db_ + "-wal"));
    EXPECT_TRUE(testing::ReadFile(db_) == before_) << "the store's file changed";
  }

  fs::path dir_;
  std::string db_, before_, report_;
};

constexpr const char* kFix = "; check the file is a whole .ncu-rep written by Nsight Compute";

TEST_F(NcuRepBadInput, Empty) {
  const std::string p = Write("empty.ncu-rep", "");
  ExpectRejected(
      p, "kscope: error: " + p + ": an empty ncu report (0 bytes); copy the report again, or profile again with ncu");
}

TEST_F(NcuRepBadInput, CutOffInsideTheFileHeader) {
  const std::string p = Write("head.ncu-rep", report_.substr(0, 6));
  ExpectRejected(p, "kscope: error: " + p + ": too short for an Nsight Compute report (6 bytes)" + kFix);
}

TEST_F(NcuRepBadInput, CutOffInsideABlockHeader) {
  const std::string p = Write("block.ncu-rep", report_.substr(0, 100));
  ExpectRejected(p, "kscope: error: " + p +
                        ": cut off or corrupt: the block header claims 130 bytes, 86 remain (at byte 14)" + kFix);
}

// Half the file: the launches before the cut were read and written, and all of it rolls back.
TEST_F(NcuRepBadInput, CutOffAtHalf) {
  const std::string p = Write("half.ncu-rep", report_.substr(0, report_.size() / 2));
  ExpectRejected(p, "kscope: error: " + p +
                        ": cut off or corrupt: a block claims 53032 bytes of payload, 2152 remain (at byte 261056)" +
                        kFix);
}

TEST_F(NcuRepBadInput, CutOffAtTheLastByte) {
  const std::string p = Write("last.ncu-rep", report_.substr(0, report_.size() - 1));
  ExpectRejected(p, "kscope: error: " + p +
                        ": cut off or corrupt: a block claims 53032 bytes of payload, 53031 remain (at byte 473384)" +
                        kFix);
}

// The first launch's first byte made a field of wire type 7, which protobuf does not have.
TEST_F(NcuRepBadInput, CorruptLaunch) {
  std::string bytes = report_;
  ASSERT_EQ(bytes.substr(39266, 3), "\x08\xf0\x05");  // field 1, the process ID 752
  bytes[39266] = '\x0f';
  const std::string p = Write("corrupt.ncu-rep", bytes);
  ExpectRejected(p, "kscope: error: " + p + ": launch 0 is not a valid message (at byte 92294)" + kFix);
}

// A block size far beyond the file: refused before anything is allocated.
TEST_F(NcuRepBadInput, ImpossibleBlockSize) {
  std::string bytes = report_;
  bytes.replace(10, 4, std::string("\xff\xff\xff\x7f", 4));
  const std::string p = Write("size.ncu-rep", bytes);
  ExpectRejected(p, "kscope: error: " + p +
                        ": cut off or corrupt: the block header claims 2147483647 bytes, 526402 remain (at byte 14)" +
                        kFix);
}

TEST_F(NcuRepBadInput, NewerVersion) {
  std::string bytes = report_;
  bytes[9] = 9;  // the file header's version field
  const std::string p = Write("newer.ncu-rep", bytes);
  ExpectRejected(p, "kscope: error: " + p +
                        ": report format version 9; kscope reads version 7 (Nsight Compute 2025.3); import it "
                        "through the installed ncu: kscope import --via-ncu " +
                        p);
  // Callers (kscope profile) tell this refusal apart by its kind, never by its text.
  auto read = import::ncu::ReadRep(p, [](const import::ncu::RepLaunch&) { return Status::Ok(); });
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kUnreadFormatVersion);
  EXPECT_TRUE(import::ncu::IsUnreadVersion(read.error()));
}

TEST_F(NcuRepBadInput, NotAReport) {
  const std::string p = Write("text.ncu-rep", "this is a text file, not a report\n");
  ExpectRejected(
      p, "kscope: error: " + p +
             ": not a format kscope imports (an nsys SQLite export, a PyTorch profiler trace, an ncu report "
             "or its CSV pages); export one with: nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep, or ncu "
             "--import REPORT.ncu-rep --page raw --csv > FILE.csv");
}

// The signature alone: nothing after it.
TEST_F(NcuRepBadInput, SignatureOnly) {
  const std::string p = Write("sig.ncu-rep", std::string("NVR\0", 4));
  ExpectRejected(p, "kscope: error: " + p + ": too short for an Nsight Compute report (4 bytes)" + kFix);
}

int64_t Count(store::Store& s, const char* table) {
  auto q = s.db().Prepare(std::string("SELECT count(*) FROM ") + table);
  EXPECT_TRUE(q.ok());
  return q.ok() && q->Step() ? q->Int(0) : -1;
}

// 60 damaged copies of the report (a byte changed, eight bytes overwritten, or the file cut
// at a random place; a fixed seed): each import either succeeds (the damage fell inside a
// text) or fails with one line and adds nothing to the store.
TEST_F(NcuRepBadInput, RandomDamage) {
  std::mt19937 rng(14);
  int failed = 0;
  for (int i = 0; i < 60; ++i) {
    std::string bytes = report_;
    const size_t at = std::uniform_int_distribution<size_t>(8, bytes.size() - 9)(rng);
    switch (i % 3) {
      case 0: bytes[at] = static_cast<char>(bytes[at] ^ (1 + rng() % 255)); break;
      case 1:
        for (size_t k = 0; k < 8; ++k) bytes[at + k] = static_cast<char>(rng());
        break;
      default: bytes.resize(at); break;
    }
    const std::string p = Write("damaged.ncu-rep", bytes);
    auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok());
    auto out = import::ImportFiles(*s, {p}, {});
    if (out.ok()) continue;
    ++failed;
    const std::string line = out.error().Line();
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_EQ(line.rfind("kscope: error: " + p + ": ", 0), 0U) << line;
    EXPECT_EQ(Count(*s, "run") + Count(*s, "ncu_launch") + Count(*s, "ncu_metric") + Count(*s, "ncu_rule"), 0) << line;
  }
  // With this seed: every cut, and the damage that breaks the structure. The import passes
  // over instance values unread (it keeps one value per metric), so damage inside them is not
  // seen: 41 failed when they were decoded, 7 of them for such damage.
  EXPECT_EQ(failed, 34);
}

}  // namespace
}  // namespace kscope
