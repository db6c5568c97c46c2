// Short kernel names (analysis/names/short_names.h) on the zoo's real kernel names
// (tests/data/names/zoo_kernel_names.tsv) and in the reports and atlas of real zoo runs: one
// short name per kernel (every spelling of it), distinct kernels distinct short names, each
// its family plus features, no template argument list longer than the cut; report.json keeps
// the full names beside them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/atlas/atlas.h"
#include "analysis/names/kernel_names.h"
#include "analysis/names/short_names.h"
#include "config/config.h"
#include "names_support.h"
#include "report/all_kernels.h"
#include "report/atlas_report.h"
#include "report/kernel_reports.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "test_support.h"
#include "zoo_support.h"

namespace kscope {
namespace {

using analysis::KernelMatchKey;

// Checks that `shorts` gives one short name per kernel of `names` and distinct kernels
// distinct ones; `where` names the set in failures.
void ExpectOnePerKernel(const std::vector<std::string>& names, const std::vector<std::string>& shorts,
                        const std::string& where) {
  ASSERT_EQ(names.size(), shorts.size());
  std::map<std::string, std::string> by_key, key_of_short;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string key = KernelMatchKey(names[i]);
    auto [it, fresh] = by_key.emplace(key, shorts[i]);
    EXPECT_EQ(it->second, shorts[i]) << where << ": two short names for one kernel: " << names[i];
    auto [kt, fresh_short] = key_of_short.emplace(shorts[i], key);
    EXPECT_EQ(kt->second, key) << where << ": '" << shorts[i] << "' names two kernels, one of them " << names[i];
  }
}

std::map<std::string, std::vector<std::string>> ZooNamesByModel() {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& row : testing::ReadNameRows("zoo_kernel_names.tsv")) out[row.workload].push_back(row.name);
  return out;
}

TEST(ShortNamesZoo, EveryModelsKernelsGetOneShortNameEachAndDistinctOnes) {
  const auto models = ZooNamesByModel();
  ASSERT_GE(models.size(), 8u);
  for (const auto& [model, names] : models) {
    const auto shorts = analysis::ShortKernelNames(names);
    ExpectOnePerKernel(names, shorts, model);
    for (size_t i = 0; i < names.size(); ++i) {
      const auto identity = analysis::IdentifyKernel(names[i]);
      EXPECT_TRUE(shorts[i].starts_with(identity.family)) << shorts[i] << " for " << names[i];
      // The features a short name adds stay short: no template's whole text.
      EXPECT_LE(shorts[i].size(), identity.family.size() + 80) << shorts[i];
    }
  }
}

// The zoo's names where the short name must tell kernels of one family apart by what differs.
TEST(ShortNamesZoo, KernelsOfOneFamilyAreToldApartByTheirDifferingFeatures) {
  const std::vector<std::string> nvjet{"nvjet_sm90_tst_128x64_64x8_1x2_h_bz_TNT",
                                       "nvjet_sm90_tst_176x128_64x5_1x2_h_bz_TNN",
                                       "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT"};
  const auto shorts = analysis::ShortKernelNames(nvjet);
  for (const auto& s : shorts) EXPECT_TRUE(s.starts_with("nvjet_gemm ")) << s;
  EXPECT_NE(shorts[0].find("128x64"), std::string::npos) << shorts[0];
  EXPECT_NE(shorts[1].find("176x128"), std::string::npos) << shorts[1];
  EXPECT_EQ(std::set<std::string>(shorts.begin(), shorts.end()).size(), 3u);
  // Alone, a kernel is its family.
  EXPECT_EQ(analysis::ShortKernelNames({nvjet[0]}), std::vector<std::string>{"nvjet_gemm"});
}

TEST(ShortNamesZoo, TemplateArgumentsAreCut) {
  for (const auto& [model, names] : ZooNamesByModel()) {
    for (const auto& s : analysis::ShortKernelNames(names)) {
      const auto open = s.find('<');
      if (open == std::string::npos) continue;
      EXPECT_LE(s.find('>', open) - open - 1, analysis::kShortTemplateChars) << model << ": " << s;
    }
  }
}

// Every kernel a zoo report names (top kernels, stages' top kernels, roofline points, profiled
// kernels) has one
// short name, unique in the report; report.json keeps the full name and adds the short one.
TEST(ShortNamesZoo, EachZooReportNamesEveryKernelOnceAndKeepsTheFullName) {
  for (const auto& model : testing::ZooModels()) {
    auto store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
    const int64_t run = testing::ImportZoo(store, model, {"flops_all_raw.csv"});
    ASSERT_GT(run, 0) << model;
    auto r = report::BuildRunReport(store, run, config::Config{});
    ASSERT_TRUE(r.ok()) << r.error().Line();
    std::vector<std::string> names, shorts;
    for (const auto& k : r->top_kernels) names.push_back(k.name), shorts.push_back(k.short_name);
    for (const auto& st : r->stages) {
      for (const auto& k : st.top_kernels) names.push_back(k.name), shorts.push_back(k.short_name);
    }
    for (const auto& p : r->roofline.points) names.push_back(p.kernel), shorts.push_back(p.short_name);
    for (const auto& p : r->profiled) names.push_back(p.name), shorts.push_back(p.short_name);
    ASSERT_FALSE(names.empty()) << model;
    ExpectOnePerKernel(names, shorts, model);
    // The top kernels chart's labels ("rank. short name") are unique without their rank.
    std::set<std::string> labels;
    for (const auto& k : r->top_kernels)
      EXPECT_TRUE(labels.insert(k.short_name).second) << model << ": " << k.short_name;
    const auto json = report::ToJson(*r);
    for (size_t i = 0; i < r->top_kernels.size(); ++i) {
      EXPECT_EQ(json["top_kernels"][i]["name"], r->top_kernels[i].name);
      EXPECT_EQ(json["top_kernels"][i]["short_name"], r->top_kernels[i].short_name);
    }
  }
}

// atlas.html's chart labels by kernel: one short name per kernel row, distinct over the zoo.
TEST(ShortNamesZoo, TheAtlasByKernelLabelsEveryKernelDistinctly) {
  auto store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  for (const auto& model : testing::ZooModels()) ASSERT_GT(testing::ImportZoo(store, model, {"flops_all_raw.csv"}), 0);
  auto atlas = analysis::atlas::BuildAtlas(store, {}, analysis::atlas::Grouping::kKernel, {});
  ASSERT_TRUE(atlas.ok()) << atlas.error().Line();
  const auto shorts = report::AtlasShortNames(*atlas);
  ASSERT_GE(shorts.size(), 100u);
  std::set<std::string> distinct;
  for (const auto& [kernel, short_name] : shorts) distinct.insert(short_name);
  EXPECT_EQ(distinct.size(), shorts.size());
  const auto json = report::AtlasJson(*atlas);
  for (const auto& row : json["popularity"]) EXPECT_EQ(row["short_name"], shorts.at(row["kernel"]));
}

// The cells of a table's column, as text.
std::vector<std::string> ColumnOf(const report::Table& t, const std::string& name) {
  const auto at = static_cast<size_t>(std::find(t.columns.begin(), t.columns.end(), name) - t.columns.begin());
  std::vector<std::string> out;
  if (at == t.columns.size()) return out;
  for (const auto& row : t.rows) out.push_back(report::CellText(row[at]));
  return out;
}

// kscope kernels on the zoo's GPT-2 inference run with its deep pass: the Kernel column holds
// the short names, one per kernel of the listing (whatever its shapes) and distinct kernels
// distinct ones, each its Family and features; the Name column (--full-names, CSV, JSON) the
// full names; --all the same over every kernel nsys saw; kscope kernel finds a kernel by its
// short name and shows both names.
TEST(ShortNamesZoo, KscopeKernelsListsShortNamesWithTheFullOnesBeside) {
  auto store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  const int64_t run = testing::ImportZoo(store, "gpt2_infer", {"default_profile_raw.csv"});
  ASSERT_GT(run, 0);
  const analysis::ClassifyThresholds thresholds;
  auto full = report::KernelsTable(store, run, thresholds, std::nullopt, report::KernelNames::kShortAndFull);
  ASSERT_TRUE(full.ok()) << full.error().Line();
  const auto shorts = ColumnOf(*full, "Kernel"), names = ColumnOf(*full, "Name"), families = ColumnOf(*full, "Family");
  ASSERT_EQ(shorts.size(), 22U);  // its deep pass: 22 launches, one per kernel and shape
  ExpectOnePerKernel(names, shorts, "kscope kernels");
  EXPECT_LT(std::set<std::string>(shorts.begin(), shorts.end()).size(), shorts.size());  // kernels in several shapes
  for (size_t i = 0; i < shorts.size(); ++i) EXPECT_TRUE(shorts[i].starts_with(families[i])) << shorts[i];
  auto terminal = report::KernelsTable(store, run, thresholds);
  ASSERT_TRUE(terminal.ok());
  EXPECT_TRUE(ColumnOf(*terminal, "Name").empty());
  EXPECT_EQ(ColumnOf(*terminal, "Kernel"), shorts);

  auto all = report::AllKernelsTable(store, run, thresholds, std::nullopt, report::KernelNames::kShortAndFull);
  ASSERT_TRUE(all.ok()) << all.error().Line();
  const auto all_shorts = ColumnOf(*all, "Kernel");
  ExpectOnePerKernel(ColumnOf(*all, "Name"), all_shorts, "kscope kernels --all");
  EXPECT_EQ(std::set<std::string>(all_shorts.begin(), all_shorts.end()).size(), all->rows.size());  // a row a name

  // A short name of one row names that kernel for kscope kernel.
  for (size_t i = 0; i < shorts.size(); ++i) {
    if (std::count(shorts.begin(), shorts.end(), shorts[i]) != 1) continue;
    auto detail = report::KernelDetailTables(store, run, shorts[i], thresholds);
    ASSERT_TRUE(detail.ok()) << detail.error().Line();
    const auto fields = ColumnOf(detail->front(), "Field"), values = ColumnOf(detail->front(), "Value");
    EXPECT_EQ(values[0], names[i]);
    EXPECT_EQ(fields[1], "Short name");
    EXPECT_EQ(values[1], shorts[i]);
  }
}

}  // namespace
}  // namespace kscope
