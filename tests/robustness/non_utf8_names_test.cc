// Run labels are the user's bytes: a label that is not UTF-8 is kept as given, and the JSON
// view of the atlas (kscope atlas --format json) still writes valid JSON, each byte that is not
// UTF-8 shown as U+FFFD, instead of stopping with an internal error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "kscope_binary.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

class NonUtf8Names : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kscope_non_utf8_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "k.db").string();
    for (const char* label : {"odd-\xff\xfe-label", "plain"}) {
      ASSERT_EQ(Run({"import", testing::NsysData("tiny_cuda.sqlite"), "--label", label, "--force"}), 0) << Log();
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  int Run(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_});
    return testing::RunKscopeSplit(args, (dir_ / "out").string(), (dir_ / "err").string());
  }
  [[nodiscard]] std::string Read(const char* name) const {
    std::ifstream in(dir_ / name, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  [[nodiscard]] std::string Log() const { return Read("out") + Read("err"); }

  fs::path dir_;
  std::string db_;
};

TEST_F(NonUtf8Names, AtlasJsonIsValidJson) {
  ASSERT_EQ(Run({"atlas", "--format", "json"}), 0) << Log();
  const auto doc = nlohmann::json::parse(Read("out"), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << Read("out");
  EXPECT_NE(Read("out").find("odd-\xef\xbf\xbd\xef\xbf\xbd-label"), std::string::npos) << Read("out");
}

}  // namespace
}  // namespace kscope
