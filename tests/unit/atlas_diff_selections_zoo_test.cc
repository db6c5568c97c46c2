// kscope diff of two selections of runs on zoo workloads recorded on an H100: the dense
// decoders' inference (run 1, the decoder; run 2, GPT-2; tag arch=dense; each with its
// FLOP-counter and default-set ncu pages) against the MoE decoder's (run 3, tag arch=moe, its
// FLOP-counter page). The whole diff's tables and JSON against goldens checked by eye; every
// family's and kernel's runs, launches and GPU time per run (median, least, most over a
// selection's runs, 0 in a run without it) and the kernels that appeared and vanished computed
// straight from the nsys exports (SQL on their kernel tables), and the nvjet GEMMs' GPU time
// per run by SQL alone; each stage's figures per run from `kscope report` of each run; one run
// on each side against the diff of the two runs (kernels, stages, class changes); the warnings;
// a selection against itself is empty; the thresholds; selections that select nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/atlas/diff_selections.h"
#include "analysis/names/kernel_names.h"
#include "config/config.h"
#include "report/diff_selections_report.h"
#include "report/run_report.h"
#include "zoo_support.h"

namespace kscope {
namespace {

using analysis::atlas::Change;
using analysis::atlas::RunFilter;
using analysis::atlas::RunsSpread;
using analysis::atlas::SelectionDiff;

// The models of the runs, by id from 1, with their dtype and batch (zoo/models/*.yaml).
const std::vector<std::string> kModels{"decoder_infer", "gpt2_infer", "moe_decoder"};
const std::vector<std::string> kDtypes{"bf16", "fp16", "bf16"};
const std::vector<int64_t> kBatches{4, 8, 4};

store::Store& SelectionsStore() {
  static store::Store store = [] {
    auto s = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
    const std::vector<std::vector<std::string>> pages{{"flops_all_raw.csv", "default_profile_raw.csv"},
                                                      {"flops_all_raw.csv", "default_profile_raw.csv"},
                                                      {"flops_all_raw.csv"}};
    for (size_t i = 0; i < kModels.size(); ++i) {
      import::ImportOptions opts;
      opts.manifest.model = kModels[i];
      opts.manifest.dtype = kDtypes[i];
      opts.manifest.batch = kBatches[i];
      opts.manifest.tags["arch"] = i < 2 ? "dense" : "moe";
      auto run = import::ImportFiles(s, {testing::ZooFile(kModels[i], "discovery.sqlite")}, opts);
      EXPECT_TRUE(run.ok()) << run.error().Line();
      for (const auto& page : pages[i]) {
        import::ImportOptions more;
        more.into_run = static_cast<int64_t>(i) + 1;
        auto out = import::ImportFiles(s, {testing::ZooFile(kModels[i], page)}, more);
        EXPECT_TRUE(out.ok()) << out.error().Line();
      }
    }
    return s;
  }();
  return store;
}

RunFilter Tag(const std::string& arch) { return RunFilter{{}, {{"arch", arch}}, {}, {}, {}, {}}; }

SelectionDiff Diff(const RunFilter& a, const RunFilter& b) {
  auto d = analysis::atlas::DiffSelections(SelectionsStore(), a, b, config::Config{});
  EXPECT_TRUE(d.ok()) << d.error().Line();
  return d.ok() ? std::move(d).value() : SelectionDiff{};
}

const SelectionDiff& DenseAgainstMoe() {
  static const SelectionDiff d = Diff(Tag("dense"), Tag("moe"));
  return d;
}

void ExpectGolden(const std::string& text, const std::string& golden) {
  const std::string path = std::string(KSCOPE_TEST_DATA_DIR) + "/atlas/" + golden;
  if (text != testing::ReadFile(path)) {
    const auto actual = std::filesystem::temp_directory_path() / (golden + ".actual");
    std::ofstream(actual) << text;
    ADD_FAILURE() << "differs from tests/data/atlas/" << golden << "; this run's is in " << actual;
  }
}

TEST(AtlasDiffSelectionsZoo, DenseAgainstMoeAgainstGoldens) {
  const SelectionDiff& d = DenseAgainstMoe();
  std::ostringstream text;
  for (const auto& line : report::SelectionDiffWarnings(d)) text << line << "\n";
  text << "\n";
  report::WriteDiffTables(report::SelectionDiffTables(d), report::Format::kTable, text);
  ExpectGolden(text.str(), "diff_selections_dense_moe.txt");
  ExpectGolden(report::SelectionDiffJson(d).dump(2) + "\n", "diff_selections_dense_moe.json");
}

// Per family (or kernel): launches and GPU time of each run of a selection (SQL on the exports).
struct PerRun {
  std::vector<double> launches, ns;
  int64_t runs = 0;
};
std::map<std::string, PerRun> FromExports(const std::vector<std::string>& models, bool families) {
  std::vector<std::map<std::string, testing::KernelSum>> per_run;
  std::set<std::string> keys;
  for (const auto& model : models) {
    std::map<std::string, testing::KernelSum> sums;
    for (const auto& [name, s] : testing::ExportKernels(model)) {
      auto& to = sums[families ? analysis::IdentifyKernel(name).family : name];
      to.launches += s.launches;
      to.ns += s.ns;
      keys.insert(families ? analysis::IdentifyKernel(name).family : name);
    }
    EXPECT_FALSE(sums.empty()) << model;
    per_run.push_back(std::move(sums));
  }
  std::map<std::string, PerRun> out;
  for (const auto& key : keys) {
    auto& p = out[key];
    for (const auto& sums : per_run) {
      auto it = sums.find(key);
      p.runs += it != sums.end() ? 1 : 0;
      p.launches.push_back(it != sums.end() ? static_cast<double>(it->second.launches) : 0.0);
      p.ns.push_back(it != sums.end() ? static_cast<double>(it->second.ns) : 0.0);
    }
  }
  return out;
}

// The median, least and most of a figure, written out here rather than by SpreadOverRuns.
void ExpectSpread(const RunsSpread& got, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double median = v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2.0;
  EXPECT_EQ(got.median, median);
  EXPECT_EQ(got.min, v.front());
  EXPECT_EQ(got.max, v.back());
}

void ExpectRows(const std::vector<analysis::atlas::SelectionDiffRow>& rows, const std::vector<std::string>& a_models,
                const std::vector<std::string>& b_models, bool families) {
  const auto a = FromExports(a_models, families), b = FromExports(b_models, families);
  std::set<std::string> expected_appeared, expected_vanished, appeared, vanished;
  for (const auto& [key, p] : b) {
    if (!a.contains(key)) expected_appeared.insert(key);
  }
  for (const auto& [key, p] : a) {
    if (!b.contains(key)) expected_vanished.insert(key);
  }
  EXPECT_FALSE(expected_appeared.empty());
  EXPECT_FALSE(expected_vanished.empty());
  const PerRun none_a{std::vector<double>(a_models.size(), 0.0), std::vector<double>(a_models.size(), 0.0), 0};
  const PerRun none_b{std::vector<double>(b_models.size(), 0.0), std::vector<double>(b_models.size(), 0.0), 0};
  for (const auto& r : rows) {
    SCOPED_TRACE(r.key);
    const PerRun& x = a.contains(r.key) ? a.at(r.key) : none_a;
    const PerRun& y = b.contains(r.key) ? b.at(r.key) : none_b;
    EXPECT_EQ(r.runs_a, x.runs);
    EXPECT_EQ(r.runs_b, y.runs);
    ExpectSpread(r.launches_a, x.launches);
    ExpectSpread(r.launches_b, y.launches);
    ExpectSpread(r.ns_a, x.ns);
    ExpectSpread(r.ns_b, y.ns);
    if (r.change == Change::kAppeared) appeared.insert(r.key);
    if (r.change == Change::kVanished) vanished.insert(r.key);
  }
  EXPECT_EQ(appeared, expected_appeared);
  EXPECT_EQ(vanished, expected_vanished);
  // Every row both selections have is there: the decoders share no kernel with an equal figure.
  size_t both = 0;
  for (const auto& [key, p] : a) both += b.contains(key) ? 1 : 0;
  EXPECT_EQ(rows.size(), expected_appeared.size() + expected_vanished.size() + both);
}

TEST(AtlasDiffSelectionsZoo, FamiliesAndKernelsPerRunFromTheExports) {
  const SelectionDiff& d = DenseAgainstMoe();
  EXPECT_EQ(d.runs_a, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(d.runs_b, (std::vector<int64_t>{3}));
  ExpectRows(d.families, {"decoder_infer", "gpt2_infer"}, {"moe_decoder"}, true);
  ExpectRows(d.kernels, {"decoder_infer", "gpt2_infer"}, {"moe_decoder"}, false);
  // The whole runs' GPU time per run: the median of the two dense decoders' totals.
  std::vector<double> totals;
  for (const char* model : {"decoder_infer", "gpt2_infer"}) {
    double ns = 0;
    for (const auto& [name, s] : testing::ExportKernels(model)) ns += static_cast<double>(s.ns);
    totals.push_back(ns);
  }
  ExpectSpread(d.ns_a, totals);

  // One family's GPU time per run, by SQL alone: cuBLAS's nvjet GEMMs (every kernel named
  // nvjet_*), in the decoder and GPT-2 (A: the median of two is their mean) and the MoE (B).
  auto nvjet_ns = [](const std::string& model) {
    auto db = sql::Db::Open(testing::ZooFile(model, "discovery.sqlite"), sql::OpenMode::kReadOnly);
    EXPECT_TRUE(db.ok());
    auto q = db->Prepare(
        "SELECT sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
        "WHERE s.value LIKE 'nvjet!_%' ESCAPE '!'");
    EXPECT_TRUE(q.ok());
    EXPECT_TRUE(q->Step());
    return static_cast<double>(q->Int(0));
  };
  const double decoder = nvjet_ns("decoder_infer"), gpt2 = nvjet_ns("gpt2_infer"), moe = nvjet_ns("moe_decoder");
  auto it = std::find_if(d.families.begin(), d.families.end(), [](const auto& r) { return r.key == "nvjet_gemm"; });
  ASSERT_NE(it, d.families.end());
  EXPECT_EQ(it->ns_a.median, (decoder + gpt2) / 2);
  EXPECT_EQ(it->ns_a.min, std::min(decoder, gpt2));
  EXPECT_EQ(it->ns_a.max, std::max(decoder, gpt2));
  EXPECT_EQ(it->ns_b.median, moe);
  EXPECT_DOUBLE_EQ(it->GpuTimePct(), 100.0 * (moe - (decoder + gpt2) / 2) / ((decoder + gpt2) / 2));
}

// A selection of one run on each side says what the diff of the two runs says, in its terms.
TEST(AtlasDiffSelectionsZoo, OneRunEachIsTheDiffOfTheTwoRuns) {
  RunFilter one, two;
  one.run_ids = {1};
  two.run_ids = {2};
  const SelectionDiff s = Diff(one, two);
  auto r = analysis::atlas::DiffRuns(SelectionsStore(), 1, 2, config::Config{});
  ASSERT_TRUE(r.ok()) << r.error().Line();
  ASSERT_EQ(s.kernels.size(), r->kernels.size());
  for (size_t i = 0; i < s.kernels.size(); ++i) {
    SCOPED_TRACE(s.kernels[i].key);
    EXPECT_EQ(s.kernels[i].key, r->kernels[i].key);
    EXPECT_EQ(s.kernels[i].change, r->kernels[i].change);
    EXPECT_EQ(s.kernels[i].ns_a.median, static_cast<double>(r->kernels[i].ns_a));
    EXPECT_EQ(s.kernels[i].ns_b.median, static_cast<double>(r->kernels[i].ns_b));
    EXPECT_EQ(s.kernels[i].launches_b.median, static_cast<double>(r->kernels[i].launches_b));
  }
  ASSERT_EQ(s.families.size(), r->families.size());
  ASSERT_EQ(s.stages.size(), r->stages.size());
  for (size_t i = 0; i < s.stages.size(); ++i) {
    SCOPED_TRACE(s.stages[i].stage);
    EXPECT_EQ(s.stages[i].stage, r->stages[i].stage);
    EXPECT_EQ(s.stages[i].GpuTimePct(), r->stages[i].GpuTimePct());
    EXPECT_EQ(s.stages[i].MfuDeltaPts(), r->stages[i].MfuDeltaPts());
  }
  // The decoder's and GPT-2's default-set ncu pages: families whose main class differs.
  ASSERT_FALSE(r->family_classes.empty());
  auto keys = [](const std::vector<analysis::atlas::ClassChangeRow>& rows) {
    std::vector<std::string> out;
    for (const auto& c : rows) out.push_back(c.key + ": " + c.a.Main() + " -> " + c.b.Main());
    return out;
  };
  EXPECT_EQ(keys(s.family_classes), keys(r->family_classes));
  EXPECT_EQ(keys(s.kernel_classes), keys(r->kernel_classes));
}

// Each stage's figures per run are those of kscope report's stages for each run of the selection.
TEST(AtlasDiffSelectionsZoo, StagesFromTheRunReports) {
  const SelectionDiff& d = DenseAgainstMoe();
  ASSERT_FALSE(d.stages.empty());
  std::map<std::string, std::vector<report::StagePart>> a, b;
  for (int64_t run : {1, 2, 3}) {
    auto r = report::BuildRunReport(SelectionsStore(), run, config::Config{});
    ASSERT_TRUE(r.ok()) << r.error().Line();
    for (const auto& s : r->stages) (run < 3 ? a : b)[s.name].push_back(s);
  }
  auto expect = [](const std::optional<analysis::atlas::SelectionStageFacts>& got,
                   const std::map<std::string, std::vector<report::StagePart>>& from, const std::string& stage) {
    ASSERT_EQ(got.has_value(), from.contains(stage));
    if (!got) return;
    const auto& runs = from.at(stage);
    std::vector<double> instances, median, mfu;
    for (const auto& s : runs) {
      instances.push_back(static_cast<double>(s.instances));
      median.push_back(s.steady.median_gpu_ns);
      if (s.mfu.mfu_pct) mfu.push_back(*s.mfu.mfu_pct);
    }
    EXPECT_EQ(got->runs, static_cast<int64_t>(runs.size()));
    ExpectSpread(got->instances, instances);
    ExpectSpread(got->median_gpu_ns, median);
    ASSERT_EQ(got->mfu.has_value(), !mfu.empty());
    if (got->mfu) ExpectSpread(*got->mfu, mfu);
  };
  int64_t both_mfu = 0;
  for (const auto& row : d.stages) {
    SCOPED_TRACE(row.stage);
    expect(row.a, a, row.stage);
    expect(row.b, b, row.stage);
    if (row.MfuDeltaPts()) ++both_mfu;
  }
  EXPECT_GT(both_mfu, 0);  // prefill and decode: measured in every run
}

TEST(AtlasDiffSelectionsZoo, WarningsAndThresholds) {
  // One H100, one driver, one nsys; the dense selection holds GPT-2 in fp16 at batch 8 beside
  // the decoder in bf16 at batch 4, as the MoE decoder is.
  const std::vector<std::string> expected{
      "kscope: warning: selections A (runs 1, 2) and B (runs 3) differ in dtype: 'bf16', 'fp16' against 'bf16'; "
      "their numbers may not be comparable",
      "kscope: warning: selections A (runs 1, 2) and B (runs 3) differ in batch: '4', '8' against '4'; their "
      "numbers may not be comparable",
      "kscope: warning: selection A's runs (1, 2) differ among themselves in dtype: 'bf16', 'fp16'; its figures per "
      "run mix unlike runs",
      "kscope: warning: selection A's runs (1, 2) differ among themselves in batch: '4', '8'; its figures per run "
      "mix unlike runs",
      "kscope: warning: selection A's runs (1, 2) differ among themselves in model: 'decoder_infer', 'gpt2_infer'; "
      "its figures per run mix unlike runs"};
  EXPECT_EQ(report::SelectionDiffWarnings(DenseAgainstMoe()), expected);
  EXPECT_FALSE(DenseAgainstMoe().differences.empty());
  // The decoder alone against the MoE decoder: the same dtype and batch, nothing to warn of.
  RunFilter decoder;
  decoder.model = "decoder_infer";
  EXPECT_EQ(report::SelectionDiffWarnings(Diff(decoder, Tag("moe"))), std::vector<std::string>{});

  const SelectionDiff& d = DenseAgainstMoe();
  auto check = [&](const std::string& text) {
    auto t = analysis::atlas::ParseThreshold(text);
    EXPECT_TRUE(t.ok()) << text;
    return t.ok() ? analysis::atlas::Check(d, *t) : std::make_pair(0.0, false);
  };
  const double pct = 100.0 * (d.ns_b.median - d.ns_a.median) / d.ns_a.median;
  EXPECT_EQ(check("gpu_time_pct>-100"), std::make_pair(pct, true));
  EXPECT_EQ(check("gpu_time_pct>=1000"), std::make_pair(pct, false));
  const auto appeared = static_cast<double>(
      std::count_if(d.kernels.begin(), d.kernels.end(), [](const auto& r) { return r.change == Change::kAppeared; }));
  EXPECT_EQ(check("appeared>0"), std::make_pair(appeared, true));
  // The stages' largest change: prefill's median GPU time per steady instance, 1.336 ms per run
  // in A (the median of two runs) against 1.672 ms in B, +25.1%.
  EXPECT_NEAR(check("stage_gpu_time_pct>25").first, 25.1, 0.05);
  EXPECT_TRUE(check("stage_gpu_time_pct>25").second);
  EXPECT_FALSE(check("stage_gpu_time_pct>26").second);
}

TEST(AtlasDiffSelectionsZoo, ASelectionAgainstItselfIsEmpty) {
  RunFilter ids;
  ids.run_ids = {1, 2};
  for (const auto& [a, b] :
       std::vector<std::pair<RunFilter, RunFilter>>{{Tag("dense"), ids}, {Tag("moe"), Tag("moe")}}) {
    const SelectionDiff d = Diff(a, b);
    SCOPED_TRACE(d.a_text + " against " + d.b_text);
    EXPECT_EQ(d.runs_a, d.runs_b);
    EXPECT_TRUE(d.families.empty());
    EXPECT_TRUE(d.kernels.empty());
    EXPECT_TRUE(d.stages.empty());
    EXPECT_TRUE(d.family_classes.empty());
    EXPECT_TRUE(d.kernel_classes.empty());
    EXPECT_TRUE(d.differences.empty());  // a selection's own disagreements are the other's too
    EXPECT_EQ(d.ns_a, d.ns_b);
    EXPECT_EQ(d.launches_a, d.launches_b);
    for (const char* metric : {"gpu_time_pct>0", "launches_pct>0", "family_gpu_time_pct>0", "stage_gpu_time_pct>0",
                               "appeared>0", "vanished>0", "class_changes>0", "gpu_time_pct<0"}) {
      auto t = analysis::atlas::ParseThreshold(metric);
      ASSERT_TRUE(t.ok());
      EXPECT_FALSE(analysis::atlas::Check(d, *t).second) << metric;
    }
  }
}

TEST(AtlasDiffSelectionsZoo, SelectionsThatSelectNothing) {
  auto line = [](const RunFilter& a, const RunFilter& b) {
    auto d = analysis::atlas::DiffSelections(SelectionsStore(), a, b, config::Config{});
    return d.ok() ? std::string("ok") : d.error().Line();
  };
  EXPECT_EQ(line(Tag("dense"), Tag("sparse")),
            "kscope: error: selection --b-tag arch=sparse: matches no run; list the runs and their manifests with: "
            "kscope runs");
  EXPECT_EQ(line(RunFilter{{}, {{"archh", "dense"}}, {}, {}, {}, {}}, Tag("moe")),
            "kscope: error: selection --a-tag archh=dense: no run of the database has the tag 'archh'; list the runs "
            "and their tags with: kscope runs");
  EXPECT_EQ(line(RunFilter{{1, 9}, {}, {}, {}, {}, {}}, Tag("moe")),
            "kscope: error: run 9: is not in the database; list the runs with: kscope runs");
  // The side is named for the one kind of error that says the selection matched no run; an
  // unknown run id is another kind and is passed on as it is.
  auto none = analysis::atlas::SelectRuns(SelectionsStore(), Tag("sparse"));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, ErrorKind::kNoMatchingRun);
  auto unknown = analysis::atlas::SelectRuns(SelectionsStore(), RunFilter{{1, 9}, {}, {}, {}, {}, {}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, ErrorKind::kOther);
  EXPECT_EQ(line(Tag("dense"), RunFilter{{}, {}, {}, std::string("gpt2_infer"), std::string("NVIDIA H200"), {}}),
            "kscope: error: selection --b-model gpt2_infer --b-gpu NVIDIA H200: matches no run; list the runs and "
            "their manifests with: kscope runs");
}

}  // namespace
}  // namespace kscope
