// kscope's configuration: the defaults, a YAML file and KEY=VALUE overrides in that order, the
// mistakes each named with its fix, docs/config.md generated from the key table; sweeps over it.
#include "config/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "config/sweep.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

// ---- configuration ----

TEST(Config, DefaultsFileAndOverridesInThatOrder) {
  const fs::path file = fs::temp_directory_path() / "kscope_config_test.yaml";
  std::ofstream(file) << "ncu:\n  mode: deep\n  sections: [SourceCounters]\nselection:\n  top: 7\n"
                         "model:\n  stage_tokens: {prefill: 256, decode: 32}\n";
  auto c = config::LoadConfig(file.string(), {"selection.top=30", "nsys.capture_range=decode"});
  ASSERT_TRUE(c.ok()) << c.error().Line();
  EXPECT_EQ(c->ncu.mode, "deep");
  EXPECT_EQ(c->ncu.sections, std::vector<std::string>{"SourceCounters"});
  EXPECT_EQ(c->selection.top, 30);  // the override wins over the file
  EXPECT_EQ(c->selection.coverage_pct, 90);
  EXPECT_EQ(c->nsys.capture_range, "decode");
  EXPECT_EQ(c->model.stage_tokens, (std::map<std::string, int64_t>{{"decode", 32}, {"prefill", 256}}));
  // The effective configuration reads back as the same configuration.
  const fs::path again = fs::temp_directory_path() / "kscope_config_test2.yaml";
  std::ofstream(again) << config::ToYaml(*c);
  auto c2 = config::LoadConfig(again.string());
  ASSERT_TRUE(c2.ok()) << c2.error().Line();
  EXPECT_EQ(config::ToYaml(*c2), config::ToYaml(*c));
  fs::remove(file);
  fs::remove(again);
}

TEST(Config, MistakesNameTheKeyAndTheFix) {
  auto typo = config::LoadConfig("", {"ncu.mod=deep"});
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().Line(),
            "kscope: error: unknown configuration key 'ncu.mod'; did you mean 'ncu.mode'? (docs/config.md)");
  auto choice = config::LoadConfig("", {"ncu.mode=fast"});
  ASSERT_FALSE(choice.ok());
  EXPECT_EQ(choice.error().Line(),
            "kscope: error: override ncu.mode: ncu.mode is 'fast', not one of quick, deep, roofline, full; see "
            "docs/config.md");
  auto type = config::LoadConfig("", {"selection.top=many"});
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.error().Line(),
            "kscope: error: override selection.top: selection.top must be integer; see docs/config.md");
  auto form = config::LoadConfig("", {"selection.top"});
  ASSERT_FALSE(form.ok());
  EXPECT_EQ(form.error().Line(), "kscope: error: override 'selection.top' is not KEY=VALUE; write e.g. ncu.mode=deep");
  const fs::path file = fs::temp_directory_path() / "kscope_config_bad.yaml";
  std::ofstream(file) << "ncu: [unclosed\n";
  auto bad = config::LoadConfig(file.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where, file.string());
  EXPECT_NE(bad.error().what.find("not valid YAML"), std::string::npos);
  fs::remove(file);
}

TEST(Config, DocsConfigMdListsEveryKey) {
  const std::string doc = testing::ReadFile(std::string(KSCOPE_SOURCE_DIR) + "/docs/config.md");
  EXPECT_NE(doc.find(config::KeysMarkdown()), std::string::npos)
      << "docs/config.md is out of date: paste the output of `kscope config --keys`";
}

// ---- sweeps ----

TEST(Sweep, MatrixOfConfigKeysAndCommandPlaceholders) {
  auto c = config::LoadConfig("");
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(config::AddSweepArg(*c, "batch=1,2").ok());
  ASSERT_TRUE(config::AddSweepArg(*c, "ncu.mode=quick,deep").ok());
  auto points = config::ExpandSweep(*c, {"python3", "bench.py", "--batch={batch}"});
  ASSERT_TRUE(points.ok()) << points.error().Line();
  ASSERT_EQ(points->size(), 4U);
  std::vector<std::string> seen;
  for (const auto& p : *points) {
    seen.push_back(p.workload[2] + " " + p.config.ncu.mode);
    EXPECT_TRUE(p.config.sweep.empty());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"--batch=1 quick", "--batch=1 deep", "--batch=2 quick", "--batch=2 deep"}));
}

TEST(Sweep, KeysMustBeUsed) {
  auto c = config::LoadConfig("");
  ASSERT_TRUE(config::AddSweepArg(*c, "batch=1,2").ok());
  auto unused = config::ExpandSweep(*c, {"python3", "bench.py"});
  ASSERT_FALSE(unused.ok());
  EXPECT_EQ(unused.error().what.substr(0, 73),
            "sweep key 'batch' is neither a configuration key nor used as {batch} in t");
  // The workload's arguments reach it as written: a brace no sweep key gives, and Hydra's
  // ${...} interpolations, stay byte for byte.
  auto c2 = config::LoadConfig("");
  const std::vector<std::string> hydra{"python3",  "train.py",     "out=${run.mode}",
                                       "{layers}", "x=${a.b}/{c}", "print({1: 2})"};
  auto one = config::ExpandSweep(*c2, hydra);
  ASSERT_TRUE(one.ok()) << one.error().Line();
  ASSERT_EQ(one->size(), 1U);
  EXPECT_EQ(one->front().workload, hydra);
  // A sweep key named like a Hydra key is substituted only as {name}, never inside ${...}.
  ASSERT_TRUE(config::AddSweepArg(*c2, "run.mode=a,b").ok());
  auto two = config::ExpandSweep(*c2, {"python3", "train.py", "out=${run.mode}", "tag={run.mode}"});
  ASSERT_TRUE(two.ok()) << two.error().Line();
  ASSERT_EQ(two->size(), 2U);
  EXPECT_EQ((*two)[0].workload, (std::vector<std::string>{"python3", "train.py", "out=${run.mode}", "tag=a"}));
}

}  // namespace
}  // namespace kscope
