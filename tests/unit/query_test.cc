// kscope query's views and its read-only statement runner, on the devset's tiny_cuda run: its
// nsys export and the ncu raw page of its GEMM, imported into one run.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "analysis/kernels/ncu_launches.h"
#include "import/import_files.h"
#include "report/query_table.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

std::string Csv(const Result<report::Table>& t) {
  if (!t.ok()) return t.error().Line();
  std::ostringstream out;
  report::WriteCsv(*t, out);
  return out.str();
}

class QueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() / ("kscope_query_" + std::to_string(getpid()) + ".db")).string();
    fs::remove(path_);
    auto s = store::Store::Open(path_, sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok()) << s.error().Line();
    import::ImportOptions options;
    options.manifest.model = "tiny_cuda";
    options.manifest.tags = {{"suite", "devset"}};
    auto r = import::ImportFiles(*s, {testing::NsysData("tiny_cuda.sqlite")}, options);
    ASSERT_TRUE(r.ok()) << r.error().Line();
    options.into_run = 1;
    r = import::ImportFiles(*s, {std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/tiny_cuda_gemm_full_raw.csv"}, options);
    ASSERT_TRUE(r.ok()) << r.error().Line();
  }
  void TearDown() override { fs::remove(path_); }
  std::string path_;
};

TEST_F(QueryTest, KernelsViewEqualsNsysOwnKernelSummary) {
  auto s = store::Store::Open(path_, sql::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok());
  // tests/data/nsys/expected/tiny_cuda/cuda_gpu_kern_sum.csv, written by nsys itself: Instances,
  // Total Time (ns), Min, Max and Name of its two kernels.
  EXPECT_EQ(Csv(report::QueryTable(s->db(),
                                   "SELECT kernel_name, launches, total_ns, min_ns, max_ns FROM v_kernels "
                                   "WHERE run_id = 1 ORDER BY total_ns DESC")),
            "kernel_name,launches,total_ns,min_ns,max_ns\n"
            "\"saxpy(int, float, const float *, float *)\",8,506297,61919,64703\n"
            "\"void tiled_gemm<(int)16>(int, const float *, const float *, float *)\",1,276028,276028,276028\n");
}

TEST_F(QueryTest, RunsViewCarriesTheManifest) {
  auto s = store::Store::Open(path_, sql::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok());
  // GPU, driver and nsys version as the export's TARGET_INFO tables and META_DATA_EXPORT say.
  EXPECT_EQ(
      Csv(report::QueryTable(
          s->db(), "SELECT run_id, model, gpu, driver, cuda_version, nsys_export_version, status, tags FROM v_runs")),
      "run_id,model,gpu,driver,cuda_version,nsys_export_version,status,tags\n"
      "1,tiny_cuda,NVIDIA H200,580.159.04,13.0,2025.3.2.0,complete,\"{\"\"suite\"\":\"\"devset\"\"}\"\n");
}

TEST_F(QueryTest, NcuViewsEqualTheLaunchesKscopeLoads) {
  auto s = store::Store::Open(path_, sql::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok());
  auto launches = analysis::LoadNcuLaunches(*s, 1);
  ASSERT_TRUE(launches.ok());
  ASSERT_EQ(launches->size(), 1U);
  const auto& l = launches->front();
  EXPECT_EQ(Csv(report::QueryTable(s->db(), "SELECT count(*) AS launches FROM v_ncu_launches WHERE run_id = 1")),
            "launches\n1\n");
  EXPECT_EQ(Csv(report::QueryTable(
                s->db(), "SELECT launch_id, kernel_name, grid_x, grid_y, block_x, block_y FROM v_ncu_launches")),
            "launch_id,kernel_name,grid_x,grid_y,block_x,block_y\n"
            "0,\"void tiled_gemm<16>(int, const float *, const float *, float *)\",64,64,16,16\n");
  EXPECT_EQ(Csv(report::QueryTable(s->db(), "SELECT count(*) AS metrics FROM v_ncu_metrics WHERE launch_id = 0")),
            "metrics\n" + std::to_string(l.metrics.size()) + "\n");
  // 364480 ns is the raw page's "us 364.480000" (ncu_import_test.cc checks the same number).
  EXPECT_EQ(*l.Number("gpu__time_duration.sum"), 364480.0);
  EXPECT_EQ(Csv(report::QueryTable(s->db(),
                                   "SELECT metric_name, value, unit FROM v_ncu_metrics "
                                   "WHERE metric_name IN ('gpu__time_duration.sum', 'dram__bytes_read.sum') "
                                   "ORDER BY metric_name")),
            "metric_name,value,unit\ndram__bytes_read.sum,8397056.0,byte\ngpu__time_duration.sum,364480.0,ns\n");
  EXPECT_EQ(Csv(report::QueryTable(s->db(),
                                   "SELECT value_text FROM v_ncu_metrics "
                                   "WHERE metric_name = 'device__attribute_display_name'")),
            "value_text\nNVIDIA H200\n");
}

TEST_F(QueryTest, LaunchFiguresViewHoldsWhatKernelsShows) {
  auto s = store::Store::Open(path_, sql::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok());
  // `kscope kernels 1` on this run: mixed, SM 70.1%, DRAM 0.5%, L1 hit 2.0%, L2 hit 95.6%, FP32
  // on the compute-bound side at 11.7% of roof, achieved occupancy 91.2%, top stall mio_throttle.
  EXPECT_EQ(Csv(report::QueryTable(s->db(), "SELECT * FROM v_ncu_launch_figures")),
            "run_id,launch_id,kernel_name,grid_x,grid_y,grid_z,block_x,block_y,block_z,duration_ns,sm_pct,memory_pct,"
            "dram_pct,l1_hit_pct,l2_hit_pct,achieved_occupancy_pct,theoretical_occupancy_pct,occupancy_limiter,"
            "top_stall,waves,registers,shared_bytes,tensor_pipe_pct,roof_precision,roof_pct,roof_memory_bound,shape\n"
            "1,0,\"void tiled_gemm<16>(int, const float *, const float *, float *)\",64,64,1,16,16,1,364480.0,"
            "70.116773,89.585764,0.478796,1.998345,95.593,91.22817,100.0,registers,mio_throttle,3.88,32.0,3072.0,"
            "0.025279,FP32,11.6633488517992,0,\n");
  // The figures that are one metric each are that metric's value.
  EXPECT_EQ(Csv(report::QueryTable(
                s->db(),
                "SELECT m.metric_name FROM v_ncu_launch_figures f JOIN v_ncu_metrics m "
                "ON m.run_id = f.run_id AND m.launch_id = f.launch_id WHERE "
                "(m.metric_name = 'sm__throughput.avg.pct_of_peak_sustained_elapsed' AND m.value = f.sm_pct) OR "
                "(m.metric_name = 'lts__t_sector_hit_rate.pct' AND m.value = f.l2_hit_pct) OR "
                "(m.metric_name = 'launch__waves_per_multiprocessor' AND m.value = f.waves) OR "
                "(m.metric_name = 'launch__registers_per_thread' AND m.value = f.registers) "
                "ORDER BY m.metric_name")),
            "metric_name\nlaunch__registers_per_thread\nlaunch__waves_per_multiprocessor\n"
            "lts__t_sector_hit_rate.pct\nsm__throughput.avg.pct_of_peak_sustained_elapsed\n");
}

TEST_F(QueryTest, WritesAndBadStatementsAreOneLineErrors) {
  auto s = store::Store::Open(path_, sql::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Csv(report::QueryTable(s->db(), "INSERT INTO string(value) VALUES ('x')")),
            "kscope: error: " + path_ +
                ": query: kscope query only reads, and this statement would change the database; ask with SELECT "
                "(the views are in docs/query.md)");
  EXPECT_EQ(Csv(report::QueryTable(s->db(), "SELECT 1; DELETE FROM run")),
            "kscope: error: " + path_ +
                ": query: more than one SQL statement; pass one at a time; see the views in docs/query.md");
  EXPECT_EQ(Csv(report::QueryTable(s->db(), " ; ")),
            "kscope: error: " + path_ + ": query: no SQL statement given; see the views in docs/query.md");
  EXPECT_EQ(Csv(report::QueryTable(s->db(), "SELECT nope FROM v_runs")),
            "kscope: error: " + path_ + ": query: no such column: nope; see the views in docs/query.md");
  // The read-only connection, not only the check, refuses a write that gets past it.
  auto ins = s->db().Prepare("INSERT INTO string(value) VALUES ('x')");
  ASSERT_TRUE(ins.ok());
  EXPECT_FALSE(ins->Run().ok());
  EXPECT_EQ(Csv(report::QueryTable(s->db(), "SELECT count(*) AS n FROM string WHERE value = 'x'")), "n\n0\n");
}

}  // namespace
}  // namespace kscope
