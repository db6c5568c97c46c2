// Names that are not UTF-8 or hold control characters (a Latin-1 byte, NUL, a newline, BEL,
// a terminal escape): stored as they came, and every output of the binary shows them safely
// (valid JSON, escapes in text, tables and HTML) with exit 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kscope_binary.h"
#include "test_support.h"
#include "util/sqlite.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using std::string_literals::operator""s;

const std::string kKernel = "sax\xE9py\0\n\x07"s;        // saxpy, as its full name (StringIds 58)
const std::string kStage = "pre\xE9\x66ill\t\x1b[31m"s;  // the "prefill" NVTX range
const std::string kLabel = "lab\xE9l\nx"s;               // --label
// As text outputs show them: U+FFFD for the Latin-1 byte, control characters escaped.
const std::string kKernelShown = "sax\xEF\xBF\xBDpy\\0\\n\\x07";
const std::string kStageShown = "pre\xEF\xBF\xBD\x66ill\\t\\x1b[31m";
const std::string kLabelShown = "lab\xEF\xBF\xBDl\\nx";
// The report's short kernel name (its whitespace dropped with the argument list).
const std::string kKernelShortShown = "sax\xEF\xBF\xBDpy\\0\\x07";

// Every byte printable or a line break, and the whole valid UTF-8.
bool SafeText(const std::string& text) {
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x20 && c != '\n') || b == 0x7F) return false;
  }
  try {
    (void)nlohmann::json(text).dump();  // throws on bytes that are not UTF-8
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

class AnyBytes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kscope_any_bytes_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    export_ = (dir_ / "odd.sqlite").string();
    fs::copy_file(testing::NsysData("tiny_cuda.sqlite"), export_);
    auto db = sql::Db::Open(export_, sql::OpenMode::kReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().Line();
    auto name = db->Prepare("UPDATE StringIds SET value = CAST(?1 AS TEXT) WHERE id = 58");
    ASSERT_TRUE(name.ok());
    const std::span<const uint8_t> kernel(reinterpret_cast<const uint8_t*>(kKernel.data()), kKernel.size());
    ASSERT_TRUE(name->BindBlob(1, kernel).Run().ok());
    auto stage = db->Prepare("UPDATE NVTX_EVENTS SET text = CAST(?1 AS TEXT) WHERE text = 'prefill'");
    ASSERT_TRUE(stage.ok());
    const std::span<const uint8_t> text(reinterpret_cast<const uint8_t*>(kStage.data()), kStage.size());
    ASSERT_TRUE(stage->BindBlob(1, text).Run().ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // kscope ARGS... on the test's database; its exit status and output.
  std::pair<int, std::string> Kscope(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", (dir_ / "k.db").string()});
    const std::string log = (dir_ / "out.log").string();
    const int rc = testing::RunKscope(args, log);
    return {rc, testing::ReadFile(log)};
  }

  fs::path dir_;
  std::string export_;
};

TEST_F(AnyBytes, StoredExactlyAndShownSafelyInEveryFormat) {
  auto [rc, out] = Kscope({"import", export_, "--label", kLabel});
  ASSERT_EQ(rc, 0) << out;
  {  // stored as the bytes came
    auto store = store::Store::Open((dir_ / "k.db").string(), sql::OpenMode::kReadOnly);
    ASSERT_TRUE(store.ok());
    auto run = store->GetRun(1);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->manifest.label.value_or(""), kLabel);
    auto q = store->db().Prepare("SELECT count(*) FROM string WHERE value = ?1");
    ASSERT_TRUE(q.ok());
    for (const std::string& s : {kKernel, kStage}) {
      q->Bind(1, s);
      ASSERT_TRUE(q->Step());
      EXPECT_EQ(q->Int(0), 1) << "not stored exactly";
      q->Reset();
    }
  }

  // kscope report: the terminal summary and report.md, report.json, report.html.
  const std::string rep = (dir_ / "rep").string();
  std::tie(rc, out) = Kscope({"report", "1", "--out", rep});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_TRUE(SafeText(out)) << out;
  for (const std::string& shown :
       {"run 1 (" + kLabelShown + ")", kKernelShortShown + "  " + kKernelShortShown, kStageShown})
    EXPECT_NE(out.find(shown), std::string::npos) << shown << "\n" << out;
  const std::string md = testing::ReadFile(rep + "/report.md");
  EXPECT_TRUE(SafeText(md));
  // report.md's tables show kernels by their short names (report.json keeps the whole one).
  for (const std::string& shown : {kKernelShortShown, kStageShown, kLabelShown})
    EXPECT_NE(md.find(shown), std::string::npos) << shown << "\n" << md;
  const std::string html = testing::ReadFile(rep + "/report.html");
  EXPECT_TRUE(SafeText(html));
  // kscope whatif names the kernels (its iterations are the odd kernel's launches) too.
  {
    auto [whatif_rc, whatif_out] = Kscope({"whatif", "1"});
    EXPECT_EQ(whatif_rc, 0) << whatif_out;
    EXPECT_TRUE(SafeText(whatif_out)) << whatif_out;
  }
  EXPECT_NE(html.find("<title>kscope report: " + kLabelShown + "</title>"), std::string::npos);
  EXPECT_NE(html.find(kKernelShown), std::string::npos);
  const auto json = nlohmann::json::parse(testing::ReadFile(rep + "/report.json"), nullptr, false);
  ASSERT_FALSE(json.is_discarded());
  // JSON keeps the control characters (escaped by JSON itself); the Latin-1 byte is U+FFFD.
  EXPECT_EQ(json["run"]["label"], "lab\xEF\xBF\xBDl\nx");
  EXPECT_NE(json.dump().find(nlohmann::json("sax\xEF\xBF\xBDpy\0\n\x07"s).dump()), std::string::npos);

  // kscope stats in its three formats, and kscope runs.
  std::tie(rc, out) = Kscope({"stats", "1", "-r", "cuda_gpu_kern_sum", "-r", "nvtx_sum"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_TRUE(SafeText(out));
  EXPECT_NE(out.find(kKernelShown + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find(kStageShown), std::string::npos) << out;
  std::tie(rc, out) = Kscope({"stats", "1", "-r", "cuda_gpu_kern_sum", "-f", "csv"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_TRUE(SafeText(out));
  EXPECT_NE(out.find("," + kKernelShown + "\n"), std::string::npos) << out;
  std::tie(rc, out) = Kscope({"stats", "1", "-r", "cuda_gpu_kern_sum", "-f", "json"});
  ASSERT_EQ(rc, 0) << out;
  const auto stats = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(stats.is_discarded()) << out;
  EXPECT_EQ(stats["rows"][0]["Name"], "sax\xEF\xBF\xBDpy\0\n\x07"s) << out;
  std::tie(rc, out) = Kscope({"runs"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_TRUE(SafeText(out));
  EXPECT_NE(out.find(kLabelShown), std::string::npos) << out;
}

}  // namespace
}  // namespace kscope
