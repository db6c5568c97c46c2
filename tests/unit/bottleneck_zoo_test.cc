// Bottleneck classes from whatever ncu collected. tests/data/zoo/encoder_bert/portable_raw.csv.zst
// is an ncu capture of the BERT-style encoder made on an H100 with only SM and DRAM throughput,
// L1 and L2 hit rates, three stall percentages and the duration: kscope kernels on it, and each
// kernel's class, evidence, stalls and the metrics its verdict rests on, against
// tests/data/report/encoder_bert_portable_kernels.txt (checked by hand against the CSV's
// values). The devset's deep capture (SpeedOfLight, stalls per issue) the same way, and the
// thresholds of the configuration moving real kernels between classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/kernels/bottleneck.h"
#include "analysis/kernels/ncu_launches.h"
#include "import/import_files.h"
#include "report/kernel_reports.h"
#include "report/table.h"
#include "zoo_support.h"

namespace kscope {
namespace {

const std::string kData = std::string(KSCOPE_TEST_DATA_DIR) + "/";

// The fields of `kscope kernel RUN ID` that say what limits the kernel and why.
std::string Verdict(store::Store& store, int64_t run, size_t id) {
  auto tables = report::KernelDetailTables(store, run, std::to_string(id), {});
  if (!tables.ok()) return tables.error().Line() + "\n";
  std::string out = "== " + std::to_string(id) + "\n";
  for (const auto& row : tables->front().rows) {
    const std::string field = report::CellText(row[0]);
    const bool wanted = field == "Class" || field == "Why" || field == "Rests on" || field.starts_with("Stall") ||
                        field.starts_with("SM /") || field.starts_with("DRAM /") || field.starts_with("L1 / L2") ||
                        field.starts_with("Achieved");
    if (wanted) out += field + ": " + report::CellText(row[1]) + "\n";
  }
  return out;
}

// kscope kernels as CSV, then each kernel's verdict; compared with `golden`.
void ExpectKernelsEqual(store::Store& store, int64_t run, const std::string& golden) {
  auto table = report::KernelsTable(store, run, {}, std::nullopt, report::KernelNames::kShortAndFull);
  ASSERT_TRUE(table.ok()) << table.error().Line();
  std::ostringstream out;
  report::WriteCsv(*table, out);
  for (size_t id = 0; id < table->rows.size(); ++id) out << Verdict(store, run, id);
  if (out.str() != testing::ReadFile(kData + "report/" + golden)) {
    const auto path = std::filesystem::temp_directory_path() / (golden + ".actual");
    std::ofstream(path) << out.str();
    ADD_FAILURE() << "differs from tests/data/report/" << golden << "; this run's is in " << path;
  }
  // No kernel is left unknown, and every one has its stalls.
  const auto& cols = table->columns;
  const auto stall = static_cast<size_t>(std::find(cols.begin(), cols.end(), "Top Stall") - cols.begin());
  ASSERT_LT(stall, cols.size());
  for (const auto& row : table->rows) {
    EXPECT_NE(report::CellText(row[7]), "unknown") << report::CellText(row[1]);
    EXPECT_NE(report::CellText(row[stall]), "") << report::CellText(row[1]);
  }
}

store::Store NewStore() { return std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value(); }

TEST(BottleneckZoo, PortableMetricListGivesClassesAndStalls) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "encoder_bert", {"portable_raw.csv"});
  ASSERT_GE(run, 0);
  ExpectKernelsEqual(store, run, "encoder_bert_portable_kernels.txt");
}

// A user's own capture with the portable list and ncu's defaults (tests/data/zoo/README.md):
// names with every namespace dropped, no nsys run beside it; still ATen's, classified, stalls.
TEST(BottleneckZoo, AUsersOwnPortableCaptureAlone) {
  auto store = NewStore();
  auto out = import::ImportFiles(store, {testing::ZooFile("decoder_infer", "portable_first40_raw.csv")}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  ExpectKernelsEqual(store, out->front().run_id, "decoder_infer_portable_first40_kernels.txt");
}

TEST(Bottleneck, DeepCaptureGivesStallsPerIssue) {
  auto store = NewStore();
  ASSERT_TRUE(import::ImportFiles(store, {kData + "nsys/llama.sqlite"}, {}).ok());
  import::ImportOptions opts;
  opts.into_run = 1;
  ASSERT_TRUE(import::ImportFiles(store, {kData + "ncu/llama_deep_raw.csv"}, opts).ok());
  ExpectKernelsEqual(store, 1, "llama_deep_kernels.txt");
}

// The class of the first profiled launch of the kernel whose name contains `part` (and, when
// given, whose grid's y is `grid_y`).
std::string ClassOf(const std::vector<analysis::NcuLaunch>& launches, const std::string& part,
                    const analysis::ClassifyThresholds& t, int64_t grid_y = 0) {
  for (const auto& l : launches) {
    if (l.key.name.find(part) == std::string::npos || (grid_y != 0 && l.key.grid[1] != grid_y)) continue;
    return std::string(analysis::BottleneckName(Diagnose(l, t).bottleneck));
  }
  return "no kernel " + part;
}

// Real kernels, each at its own figures, move between classes as the thresholds move.
TEST(Bottleneck, ThresholdsComeFromTheConfiguration) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "encoder_bert", {"portable_raw.csv"});
  auto launches = analysis::LoadNcuLaunches(store, run);
  ASSERT_TRUE(launches.ok());
  const analysis::ClassifyThresholds defaults;
  // float16_copy over (22892) blocks: DRAM 86.6%, L2 hit rate 34.0%.
  const std::string copy = "float16_copy";
  EXPECT_EQ(ClassOf(*launches, copy, defaults), "memory (DRAM)");
  analysis::ClassifyThresholds t = defaults;
  t.low_l2_hit_pct = 40;
  EXPECT_EQ(ClassOf(*launches, copy, t), "cache inefficiency");
  // GELU: SM 64.9%, DRAM 45.6%: compute, or mixed once 45% counts as busy.
  EXPECT_EQ(ClassOf(*launches, "GeluCUDAKernelImpl", defaults), "compute");
  t = defaults;
  t.busy_pct = 45;
  EXPECT_EQ(ClassOf(*launches, "GeluCUDAKernelImpl", t), "mixed");
  // The fill kernel: 2.5 us over 4 blocks, launch-bound until launches must be under 2 us.
  EXPECT_EQ(ClassOf(*launches, "FillFunctor", defaults), "launch");
  t = defaults;
  t.launch_us = 2;
  EXPECT_EQ(ClassOf(*launches, "FillFunctor", t), "latency/occupancy");

  // The devset's deep capture: the nvjet GEMM over (8, 11, 1) blocks (SM 9.1%, DRAM 17.1% of
  // peak, L2 hit rate 11.6%) is a cache inefficiency once 15% counts as busy.
  auto deep = NewStore();
  ASSERT_TRUE(import::ImportFiles(deep, {kData + "nsys/llama.sqlite"}, {}).ok());
  import::ImportOptions opts;
  opts.into_run = 1;
  ASSERT_TRUE(import::ImportFiles(deep, {kData + "ncu/llama_deep_raw.csv"}, opts).ok());
  auto deep_launches = analysis::LoadNcuLaunches(deep, 1);
  ASSERT_TRUE(deep_launches.ok());
  t = defaults;
  t.busy_pct = 15;
  EXPECT_EQ(ClassOf(*deep_launches, "nvjet", defaults, 11), "latency/occupancy");
  EXPECT_EQ(ClassOf(*deep_launches, "nvjet", t, 11), "cache inefficiency");

  // The devset's tiled GEMM (shared-memory tiles): SM 70.1%, memory 89.6% with L1 at 91.8%
  // and DRAM at 0.5%: mixed, and limited by the on-chip memories once SM must pass 75%.
  auto tiny = NewStore();
  ASSERT_TRUE(import::ImportFiles(tiny, {kData + "nsys/tiny_cuda.sqlite"}, {}).ok());
  ASSERT_TRUE(import::ImportFiles(tiny, {kData + "ncu/tiny_cuda_gemm_full_raw.csv"}, opts).ok());
  auto gemm = analysis::LoadNcuLaunches(tiny, 1);
  ASSERT_TRUE(gemm.ok());
  EXPECT_EQ(ClassOf(*gemm, "tiled_gemm", defaults), "mixed");
  t = defaults;
  t.busy_pct = 75;
  EXPECT_EQ(ClassOf(*gemm, "tiled_gemm", t), "memory (L1/L2)");
}

}  // namespace
}  // namespace kscope
