// The per-launch figures every ncu import stores (ncu_launch_figures): for the raw CSV page, a
// details page completed by its raw page in a later call, and a native .ncu-rep report, every
// stored launch equals the figures derived again from its metrics (the evidence and roofline of
// `kscope kernels`), and the class decided from them equals Diagnose's under any thresholds.
#include "analysis/kernels/launch_figures.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "import/import_files.h"
#include "test_support.h"
#include "zoo_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
const std::string kNcu = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/";

std::string UnpackedReport(const std::string& name) {
  const auto path = fs::temp_directory_path() / ("kscope_figures_" + std::to_string(getpid()) + "_" + name);
  if (!fs::exists(path)) std::ofstream(path, std::ios::binary) << testing::Unzstd(kNcu + name + ".zst");
  return path.string();
}

// Imports each group of files as one call into run `run` (0: a new run); returns the run.
int64_t Import(store::Store& s, int64_t run, const std::vector<std::vector<std::string>>& calls) {
  for (const auto& files : calls) {
    import::ImportOptions opts;
    opts.into_run = run;
    auto out = import::ImportFiles(s, files, opts);
    EXPECT_TRUE(out.ok()) << out.error().Line();
    if (!out.ok()) return 0;
    run = out->front().run_id;
  }
  return run;
}

// Compares the run's stored figures with those derived again; returns the launches compared.
size_t ExpectStoredEqualsDerived(store::Store& s, int64_t run) {
  auto launches = analysis::LoadNcuLaunches(s, run);
  EXPECT_TRUE(launches.ok());
  if (!launches.ok()) return 0;
  auto reader = analysis::StoredLaunchReader::Open(s);
  EXPECT_TRUE(reader.ok());
  if (!reader.ok()) return 0;
  analysis::ClassifyThresholds other;
  other.busy_pct = 40;
  other.launch_us = 20;
  other.launch_waves = 4;
  other.low_l2_hit_pct = 60;
  size_t n = 0;
  const Status st = reader->ForEach(run, [&](const analysis::StoredLaunch& stored) {
    ASSERT_LT(n, launches->size());
    const auto& l = (*launches)[n++];
    EXPECT_EQ(stored.launch_id, l.id);
    EXPECT_EQ(stored.grid, l.key.grid);
    EXPECT_EQ(stored.block, l.key.block);
    EXPECT_TRUE(stored.figures == analysis::FiguresOf(l)) << "run " << run << " launch " << l.id;
    for (const auto& t : {analysis::ClassifyThresholds{}, other}) {
      EXPECT_EQ(analysis::Classify(stored.figures.class_figures, t), analysis::Diagnose(l, t).bottleneck)
          << "run " << run << " launch " << l.id;
    }
  });
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(n, launches->size());
  return n;
}

TEST(LaunchFigures, EveryNcuImportStoresWhatKernelsDerives) {
  auto s = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  // A zoo run: its export, then the FLOP-counter page and the portable page in two more calls.
  const int64_t zoo = Import(s, 0,
                             {{testing::ZooFile("encoder_bert", "discovery.sqlite")},
                              {testing::ZooFile("encoder_bert", "flops_all_raw.csv")},
                              {testing::ZooFile("encoder_bert", "portable_raw.csv")}});
  // One report's details page, then its raw page in a later call: the raw page's precise
  // values replace the details page's rounded ones in launches the first call stored.
  const int64_t merged = Import(s, 0, {{kNcu + "llama_deep_details.csv"}, {kNcu + "llama_deep_raw.csv"}});
  // A native report, and the GEMM's raw page with its details page in one call.
  const int64_t rep = Import(s, 0, {{UnpackedReport("tiny_cuda_gemm_full.ncu-rep")}});
  const int64_t both = Import(s, 0, {{kNcu + "tiny_cuda_gemm_full_details.csv", kNcu + "tiny_cuda_gemm_full_raw.csv"}});
  EXPECT_EQ(ExpectStoredEqualsDerived(s, zoo), 48U);
  EXPECT_EQ(ExpectStoredEqualsDerived(s, merged), 6U);
  EXPECT_EQ(ExpectStoredEqualsDerived(s, rep), 1U);
  EXPECT_EQ(ExpectStoredEqualsDerived(s, both), 1U);
}

}  // namespace
}  // namespace kscope
