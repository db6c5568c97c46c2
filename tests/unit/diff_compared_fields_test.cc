// What kscope diff compares of a run beyond its manifest: the clocks, ncu's clock control and
// PyTorch's version that kscope profile recorded in the run's manifest.json, read from two real
// ones (tests/data/capture/llama_h100: the deep pass and a roofline pass on one H100, whose
// current SM clock differs, 345 against 1980 MHz, and is not compared); an imported export has
// none of them.
#include <gtest/gtest.h>

#include "analysis/atlas/diff.h"
#include "test_support.h"

namespace kscope {
namespace {

using analysis::atlas::ComparedFields;
using analysis::atlas::ComparedValues;

std::string Manifest(const std::string& name) {
  return testing::ReadFile(std::string(KSCOPE_TEST_DATA_DIR) + "/capture/llama_h100/" + name);
}

TEST(DiffComparedFields, FromKscopeProfilesManifest) {
  store::Manifest m;
  m.gpu = "NVIDIA H100 80GB HBM3";
  m.batch = 4;
  const ComparedValues expected{{"gpu", "NVIDIA H100 80GB HBM3"}, {"driver", std::nullopt},
                                {"cuda", std::nullopt},           {"nsys_export", std::nullopt},
                                {"nsys_tool", std::nullopt},      {"ncu", std::nullopt},
                                {"dtype", std::nullopt},          {"batch", "4"},
                                {"tokens", std::nullopt},         {"sm_max_clock_mhz", "1980"},
                                {"mem_clock_mhz", "2619"},        {"ncu_clock_control", "base"},
                                {"torch", "2.11.0+cu130"}};
  const auto deep = ComparedFields(m, Manifest("recorded_manifest.json"));
  EXPECT_EQ(deep, expected);
  const auto roofline = ComparedFields(m, Manifest("roofline_decode_manifest.json"));
  EXPECT_EQ(roofline, expected);
  EXPECT_TRUE(analysis::atlas::ManifestDifferences(deep, roofline).empty());
}

TEST(DiffComparedFields, AnImportedExportHasNoCapture) {
  const auto fields = ComparedFields({}, "");
  ASSERT_EQ(fields.size(), 13U);
  for (const auto& [name, value] : fields) EXPECT_FALSE(value) << name;
  // Text that is not kscope's JSON is no value either.
  for (const auto& [name, value] : ComparedFields({}, "{\"gpu\": 3}")) EXPECT_FALSE(value) << name;
}

}  // namespace
}  // namespace kscope
