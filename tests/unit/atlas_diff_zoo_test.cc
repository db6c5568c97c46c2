// kscope diff on the zoo: a run diffed with itself (or with another import of the same export)
// is empty; the BERT-style encoder against the ViT gives the kernels and families that appeared
// and vanished, and the launches and GPU time of the rest, as computed straight from the two
// nsys exports (SQL over CUPTI_ACTIVITY_KIND_KERNEL and StringIds); manifests that disagree are
// reported; each kernel's launch-duration spread equals the export's; --fail-if thresholds.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "analysis/atlas/diff.h"
#include "analysis/atlas/diff_selections.h"
#include "analysis/names/kernel_names.h"
#include "config/config.h"
#include "report/diff_report.h"
#include "report/diff_selections_report.h"
#include "zoo_support.h"

namespace kscope {
namespace {

using analysis::atlas::Change;
using analysis::atlas::RunDiff;

// Runs 1 and 2: the encoder's export twice (dtype bf16, then fp16); run 3: the ViT's.
store::Store& DiffStore() {
  static store::Store store = [] {
    auto s = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
    const std::vector<std::pair<std::string, std::string>> runs{
        {"encoder_bert", "bf16"}, {"encoder_bert", "fp16"}, {"vit_infer", "bf16"}};
    for (const auto& [model, dtype] : runs) {
      import::ImportOptions opts;
      opts.manifest.label = model;
      opts.manifest.dtype = dtype;
      auto out = import::ImportFiles(s, {testing::ZooFile(model, "discovery.sqlite")}, opts);
      EXPECT_TRUE(out.ok()) << out.error().Line();
    }
    return s;
  }();
  return store;
}

RunDiff Diff(int64_t a, int64_t b) {
  auto d = analysis::atlas::DiffRuns(DiffStore(), a, b, config::Config{});
  EXPECT_TRUE(d.ok()) << d.error().Line();
  return d.ok() ? std::move(d).value() : RunDiff{};
}

using Sum = testing::KernelSum;
// Launches and summed duration per kernel name of a zoo export (SQL on it), never empty.
std::map<std::string, Sum> ExportKernels(const std::string& model) {
  auto out = testing::ExportKernels(model);
  EXPECT_FALSE(out.empty()) << model;
  return out;
}

std::map<std::string, Sum> ByFamily(const std::map<std::string, Sum>& kernels) {
  std::map<std::string, Sum> out;
  for (const auto& [name, s] : kernels) {
    auto& f = out[analysis::IdentifyKernel(name).family];
    f.launches += s.launches;
    f.ns += s.ns;
  }
  return out;
}

TEST(AtlasDiffZoo, ARunAgainstItselfIsEmpty) {
  for (const auto& [a, b] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 3}, {1, 2}}) {
    SCOPED_TRACE(std::to_string(a) + " " + std::to_string(b));
    const RunDiff d = Diff(a, b);
    EXPECT_TRUE(d.families.empty());
    EXPECT_TRUE(d.kernels.empty());
    EXPECT_TRUE(d.stages.empty());
    EXPECT_TRUE(d.family_classes.empty());
    EXPECT_EQ(d.ns_a, d.ns_b);
    EXPECT_EQ(d.launches_a, d.launches_b);
    EXPECT_EQ(d.GpuTimePct(), 0);
    for (const char* metric : {"gpu_time_pct>0", "launches_pct>0", "family_gpu_time_pct>0", "stage_gpu_time_pct>0",
                               "appeared>0", "vanished>0", "class_changes>0"}) {
      auto t = analysis::atlas::ParseThreshold(metric);
      ASSERT_TRUE(t.ok());
      EXPECT_FALSE(analysis::atlas::Check(d, *t).second) << metric;
    }
  }
  // The same export imported with another dtype: comparable numbers, a warning on the manifest.
  const RunDiff d = Diff(1, 2);
  ASSERT_EQ(d.differences.size(), 1U);
  EXPECT_EQ(d.differences[0].field, "dtype");
  EXPECT_EQ(report::DiffWarnings(d),
            std::vector<std::string>{"kscope: warning: runs 1 and 2 differ in dtype: 'bf16' against 'fp16'; their "
                                     "numbers may not be comparable"});
  EXPECT_TRUE(Diff(1, 1).differences.empty());
}

// The terminal's diff without its first table (the whole runs, which always has rows).
std::string TablesOfChanges(std::vector<report::DiffTable> tables, report::Format format) {
  tables.erase(tables.begin());
  std::ostringstream out;
  report::WriteDiffTables(tables, format, out);
  return out.str();
}

// Every table of changes that has no rows says why in one sentence instead of its headers (CSV
// keeps the header alone): the encoder against itself (the same launches and GPU time, the same
// NVTX stage, no ncu data in either run), two runs without NVTX, and a selection against itself.
TEST(AtlasDiffZoo, EmptyTablesSayWhy) {
  EXPECT_EQ(TablesOfChanges(report::DiffTables(Diff(1, 1)), report::Format::kTable),
            "Families that changed\n\n"
            "none: every kernel family has the same launches and GPU time in both runs; none appeared or vanished\n\n"
            "Kernels that changed\n\n"
            "none: every kernel has the same launches and GPU time in both runs; none appeared or vanished\n\n"
            "NVTX stages that changed: GPU time per steady instance (median), instances [min-max ms], MFU\n\n"
            "none: every NVTX stage has the same instances, GPU time per instance and MFU in both runs\n\n"
            "Families whose bottleneck class changed (ncu)\n\n"
            "none: neither run has ncu results with the metrics a bottleneck class needs\n\n"
            "Kernels whose bottleneck class changed (ncu)\n\n"
            "none: neither run has ncu results with the metrics a bottleneck class needs\n");
  EXPECT_EQ(TablesOfChanges(report::DiffTables(Diff(1, 1)), report::Format::kCsv),
            "Family,Library,Change,Launches A,Launches B,GPU Time A (ms),GPU Time B (ms),Delta (ms),Delta %\n\n"
            "Kernel,Family,Library,Change,Launches A,Launches B,GPU Time A (ms),GPU Time B (ms),Delta (ms),Delta %,"
            "Launch A (us) median [min-max],Launch B (us) median [min-max]\n\n"
            "Stage,Change,Instances A,Instances B,GPU/Instance A (ms),GPU/Instance B (ms),Delta %,MFU A %,MFU B %,"
            "MFU Delta (pts)\n\n"
            "Family,Library,Class A (launches),Class B (launches)\n\n"
            "Kernel,Family,Library,Class A (launches),Class B (launches)\n");
  auto store = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  for (const char* model : {"no_nvtx_infer", "no_nvtx_train"}) ASSERT_GT(testing::ImportZoo(store, model), 0);
  auto d = analysis::atlas::DiffRuns(store, 1, 2, config::Config{});
  ASSERT_TRUE(d.ok()) << d.error().Line();
  EXPECT_TRUE(d->stages.empty());
  const std::string text = TablesOfChanges(report::DiffTables(*d), report::Format::kTable);
  EXPECT_NE(text.find("MFU\n\nnone: neither run has NVTX stages\n"), std::string::npos) << text;
  analysis::atlas::RunFilter one;
  one.run_ids = {3};
  auto self = analysis::atlas::DiffSelections(DiffStore(), one, one, config::Config{});
  ASSERT_TRUE(self.ok()) << self.error().Line();
  const std::string selections = TablesOfChanges(report::SelectionDiffTables(*self), report::Format::kTable);
  EXPECT_NE(selections.find("none: every kernel has the same launches and GPU time in both selections; none "
                            "appeared or vanished\n"),
            std::string::npos)
      << selections;
  EXPECT_NE(selections.find("none: neither selection has ncu results"), std::string::npos) << selections;
}

void ExpectRows(const std::vector<analysis::atlas::DiffRow>& rows, const std::map<std::string, Sum>& a,
                const std::map<std::string, Sum>& b) {
  std::set<std::string> appeared, vanished, expected_appeared, expected_vanished;
  for (const auto& [key, s] : b) {
    if (!a.contains(key)) expected_appeared.insert(key);
  }
  for (const auto& [key, s] : a) {
    if (!b.contains(key)) expected_vanished.insert(key);
  }
  size_t changed = 0;
  for (const auto& [key, s] : a) {
    if (b.contains(key) && (b.at(key).ns != s.ns || b.at(key).launches != s.launches)) ++changed;
  }
  for (const auto& r : rows) {
    SCOPED_TRACE(r.key);
    const Sum none;
    const Sum& x = a.contains(r.key) ? a.at(r.key) : none;
    const Sum& y = b.contains(r.key) ? b.at(r.key) : none;
    EXPECT_EQ(r.launches_a, x.launches);
    EXPECT_EQ(r.ns_a, x.ns);
    EXPECT_EQ(r.launches_b, y.launches);
    EXPECT_EQ(r.ns_b, y.ns);
    if (r.change == Change::kAppeared) appeared.insert(r.key);
    if (r.change == Change::kVanished) vanished.insert(r.key);
  }
  EXPECT_EQ(appeared, expected_appeared);
  EXPECT_EQ(vanished, expected_vanished);
  EXPECT_EQ(rows.size(), expected_appeared.size() + expected_vanished.size() + changed);
  EXPECT_FALSE(expected_appeared.empty());
  EXPECT_FALSE(expected_vanished.empty());
}

// Per kernel name of a zoo export, its launch durations sorted (SQL on the export).
std::map<std::string, std::vector<int64_t>> ExportDurations(const std::string& model) {
  std::map<std::string, std::vector<int64_t>> out;
  auto db = sql::Db::Open(testing::ZooFile(model, "discovery.sqlite"), sql::OpenMode::kReadOnly);
  EXPECT_TRUE(db.ok());
  auto q = db->Prepare(
      "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
      "ORDER BY 1, 2");
  EXPECT_TRUE(q.ok());
  while (q->Step()) out[q->Text(0)].push_back(q->Int(1));
  return out;
}

// Each kernel row's launch-duration spread (median, min, max) in the runs that launch it.
void ExpectSpreads(const std::vector<analysis::atlas::DiffRow>& rows, const std::string& model_a,
                   const std::string& model_b) {
  const auto a = ExportDurations(model_a), b = ExportDurations(model_b);
  auto expect = [](const std::optional<analysis::atlas::LaunchSpread>& got,
                   const std::map<std::string, std::vector<int64_t>>& from, const std::string& key) {
    auto it = from.find(key);
    ASSERT_EQ(got.has_value(), it != from.end());
    if (!got) return;
    const auto& v = it->second;
    const size_t n = v.size();
    const double median =
        n % 2 == 1 ? static_cast<double>(v[n / 2]) : static_cast<double>(v[n / 2 - 1] + v[n / 2]) / 2.0;
    EXPECT_EQ(got->min, v.front());
    EXPECT_EQ(got->max, v.back());
    EXPECT_DOUBLE_EQ(got->median, median);
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.key);
    expect(r.spread_a, a, r.key);
    expect(r.spread_b, b, r.key);
  }
}

TEST(AtlasDiffZoo, EncoderAgainstViTFromTheExports) {
  const RunDiff d = Diff(1, 3);
  const auto encoder = ExportKernels("encoder_bert");
  const auto vit = ExportKernels("vit_infer");
  ExpectRows(d.kernels, encoder, vit);
  ExpectRows(d.families, ByFamily(encoder), ByFamily(vit));
  ExpectSpreads(d.kernels, "encoder_bert", "vit_infer");
  for (const auto& r : d.families) EXPECT_FALSE(r.spread_a || r.spread_b) << r.key;
  Sum a, b;
  for (const auto& [k, s] : encoder) a = {a.launches + s.launches, a.ns + s.ns};
  for (const auto& [k, s] : vit) b = {b.launches + s.launches, b.ns + s.ns};
  EXPECT_EQ(d.ns_a, a.ns);
  EXPECT_EQ(d.ns_b, b.ns);
  EXPECT_EQ(d.launches_a, a.launches);
  EXPECT_EQ(d.launches_b, b.launches);
  EXPECT_TRUE(d.differences.empty());
  // Largest change in GPU time first.
  for (size_t i = 1; i < d.kernels.size(); ++i) {
    EXPECT_GE(std::llabs(d.kernels[i - 1].ns_b - d.kernels[i - 1].ns_a),
              std::llabs(d.kernels[i].ns_b - d.kernels[i].ns_a));
  }
  // The ViT takes more than twice the encoder's GPU time: a 5% threshold trips, a 500% one not.
  const double pct = 100.0 * static_cast<double>(b.ns - a.ns) / static_cast<double>(a.ns);
  auto slower = analysis::atlas::ParseThreshold("gpu_time_pct>5");
  ASSERT_TRUE(slower.ok());
  EXPECT_EQ(analysis::atlas::Check(d, *slower), std::make_pair(pct, true));
  auto much = analysis::atlas::ParseThreshold("gpu_time_pct>=500");
  ASSERT_TRUE(much.ok());
  EXPECT_FALSE(analysis::atlas::Check(d, *much).second);
  auto appeared = analysis::atlas::ParseThreshold("appeared>0");
  ASSERT_TRUE(appeared.ok());
  EXPECT_TRUE(analysis::atlas::Check(d, *appeared).second);
}

TEST(AtlasDiff, ThresholdsThatDoNotParse) {
  for (const char* text : {"gpu_time_pct", "gpu_time_pct>", ">5", "speed>5", "gpu_time_pct>5x", "gpu_time_pct=5"}) {
    auto t = analysis::atlas::ParseThreshold(text);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.error().Line(), std::string("kscope: error: --fail-if ") + text +
                                    ": is not METRIC>N, METRIC>=N, METRIC<N or METRIC<=N; write e.g. --fail-if "
                                    "'gpu_time_pct>5'; metrics: gpu_time_pct, launches_pct, family_gpu_time_pct, "
                                    "stage_gpu_time_pct, appeared, vanished, class_changes");
  }
  auto t = analysis::atlas::ParseThreshold("launches_pct<=-2.5");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->metric, "launches_pct");
  EXPECT_EQ(t->op, "<=");
  EXPECT_EQ(t->value, -2.5);
}

TEST(AtlasDiffZoo, MissingRunIsAnError) {
  auto d = analysis::atlas::DiffRuns(DiffStore(), 1, 9, config::Config{});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().Line(), "kscope: error: :memory:: no run 9 in this database; list the runs with: kscope runs");
}

}  // namespace
}  // namespace kscope
