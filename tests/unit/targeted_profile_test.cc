// The practitioner's own loop: the kernels a user names (substring or regex), the launches they
// pick (the Nth, per launch configuration or per kernel), NVTX ranges in and out, any ncu set
// and metrics, checked against what the installed ncu offers. Selections are compared with the
// same choice made by SQL on the real nsys export; ncu's catalog is the one ncu 2025.3.1
// printed on the H100.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "capture/commands.h"
#include "capture/selection.h"
#include "config/config.h"
#include "import/import_files.h"
#include "llama_store_fixture.h"
#include "recorded_runner.h"
#include "store/event_reader.h"
#include "test_support.h"
#include "tools/ncu_catalog.h"
#include "util/sqlite.h"

namespace kscope {
namespace {

class Targeted : public testing::LlamaStore {
 protected:
  // The kernel starts of the rows ncu will profile, sorted.
  static std::vector<int64_t> Profiled(const capture::Selection& sel) {
    std::vector<int64_t> rows;
    for (const auto& p : sel.passes) rows.insert(rows.end(), p.profiled_rows.begin(), p.profiled_rows.end());
    return Starts(rows);
  }
  // Kernel starts chosen by SQL on the export: launches whose call lies inside `inside` (all
  // when empty) and outside `outside`, whose demangled name contains `part`, numbered per
  // `partition` in call order, those numbered first..last.
  static std::vector<int64_t> BySql(const std::string& inside, const std::string& outside, const std::string& part,
                                    const std::string& partition, int first, int last) {
    auto db = sql::Db::Open(testing::NsysData("llama.sqlite"), sql::OpenMode::kReadOnly);
    EXPECT_TRUE(db.ok());
    auto in_range = [](const char* param) {
      return std::string("EXISTS (SELECT 1 FROM NVTX_EVENTS n WHERE n.text = ") + param +
             " AND n.globalTid = r.globalTid AND r.start >= n.start AND r.end <= n.end)";
    };
    std::string where = "instr(d.value, ?3) > 0";
    if (!inside.empty()) where += " AND " + in_range("?1");
    if (!outside.empty()) where += " AND NOT " + in_range("?2");
    auto q = db->Prepare(
        "WITH k AS (SELECT k.*, r.start AS call FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
        "ON r.correlationId = k.correlationId AND (r.globalTid & ~16777215) = k.globalPid JOIN StringIds d "
        "ON d.id = k.demangledName WHERE " +
        where + "), c AS (SELECT start, row_number() OVER (PARTITION BY " + partition +
        " ORDER BY call) AS nth FROM k) SELECT start FROM c WHERE nth BETWEEN ?4 AND ?5 ORDER BY start");
    EXPECT_TRUE(q.ok()) << q.error().Line();
    q->Bind(1, inside).Bind(2, outside).Bind(3, part).Bind(4, first).Bind(5, last);
    std::vector<int64_t> out;
    while (q->Step()) out.push_back(q->Int(0));
    return out;
  }
};

const std::string kConfigPartition = "mangledName, gridX, gridY, gridZ, blockX, blockY, blockZ, dynamicSharedMemory";

TEST_F(Targeted, TheThirdLaunchOfEachConfigurationInsideDecode) {
  config::SelectionConfig cfg;
  cfg.kernel = "rsqrt_kernel_cuda";
  cfg.launch = "3";
  cfg.stage = "decode";
  auto sel = capture::SelectKernels(*store_, run_, cfg, 11, 1);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  EXPECT_EQ(sel->limited_by, "target");
  EXPECT_EQ(sel->warmup, 2);
  EXPECT_EQ(sel->launches, 1);
  EXPECT_EQ(sel->filter_mode, "per-launch-config");
  ASSERT_EQ(sel->kernels.size(), 1U);
  const auto expected = BySql("decode", "", "rsqrt_kernel_cuda", kConfigPartition, 3, 3);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(Profiled(*sel), expected);
  // The matches, listed before ncu starts, and ncu's exact filter.
  EXPECT_EQ(capture::FormatSelection(*sel),
            "selection: 1 kernel of NVTX range 'decode' matches 'rsqrt_kernel_cuda' (2.2% of its GPU kernel time); "
            "ncu profiles 1 launch: launch 3 of each launch configuration\n"
            "    #  time %  launches  configs  profiled  kernel\n"
            "    1     2.2       144        1         1  " +
                sel->kernels[0].name + "\n");  // 2.17% and 144 launches by SQL on the export
  const auto argv = capture::NcuProfileArgv("ncu", config::NcuConfig{}, *sel, sel->passes[0], {}, "o", {"w"});
  const std::vector<std::string> window{
      "--filter-mode", "per-launch-config", "--launch-skip", "2", "--launch-count", "1",
      "--nvtx",        "--nvtx-include",    "decode/"};
  EXPECT_NE(std::search(argv.begin(), argv.end(), window.begin(), window.end()), argv.end());
  EXPECT_EQ(argv[6], "regex:^" + capture::EscapeRegex(sel->kernels[0].mangled) + "$");
}

TEST_F(Targeted, LaunchesTwoToFourOfTheKernelOutsidePrefill) {
  config::SelectionConfig cfg;
  cfg.kernel = "regex:rsqrt_kernel_cuda";
  cfg.launch = "2-4";
  cfg.launch_scope = "kernel";
  cfg.exclude = {"prefill"};
  auto sel = capture::SelectKernels(*store_, run_, cfg, 11, 1);
  ASSERT_TRUE(sel.ok()) << sel.error().Line();
  EXPECT_EQ(sel->filter_mode, "global");
  EXPECT_EQ(sel->nvtx_exclude, (std::vector<std::string>{"prefill/"}));
  const auto expected = BySql("", "prefill", "rsqrt_kernel_cuda", "mangledName", 2, 4);
  ASSERT_EQ(expected.size(), 3U);
  EXPECT_EQ(Profiled(*sel), expected);
  const auto argv = capture::NcuProfileArgv("ncu", config::NcuConfig{}, *sel, sel->passes[0], {}, "o", {"w"});
  const std::vector<std::string> window{"--filter-mode", "global",         "--launch-skip", "1", "--launch-count", "3",
                                        "--nvtx",        "--nvtx-exclude", "prefill/"};
  EXPECT_NE(std::search(argv.begin(), argv.end(), window.begin(), window.end()), argv.end());
}

TEST_F(Targeted, MistakesNameTheClosestKernels) {
  config::SelectionConfig cfg;
  cfg.kernel = "rsqrt_kernel_cdua";
  auto sel = capture::SelectKernels(*store_, run_, cfg, 11, 1);
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().Line().substr(0, 140),
            "kscope: error: selection.kernel: no kernel in scope has 'rsqrt_kernel_cdua' in its name; closest names in "
            "the kernels: 'rsqrt_kernel_cuda', ");
  // Letter case: the kernel that holds the word comes first, C++'s own words are not names.
  cfg.kernel = "splitk_TNT";
  sel = capture::SelectKernels(*store_, run_, cfg, 11, 1);
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().fix.substr(0, 80),
            "closest names in the kernels: 'nvjet_sm90_tst_64x16_64x16_4x1_v_bz_splitK_TNT', ");
  EXPECT_EQ(sel.error().fix.find("'void'"), std::string::npos);
  cfg.kernel = "regex:(unclosed";
  sel = capture::SelectKernels(*store_, run_, cfg, 11, 1);
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().where, "selection.kernel");
  cfg.kernel = "rsqrt";
  for (const std::string bad : {"0", "4-2", "x", "3-", ""}) {
    if (bad.empty()) continue;
    cfg.launch = bad;
    sel = capture::SelectKernels(*store_, run_, cfg, 11, 1);
    ASSERT_FALSE(sel.ok()) << bad;
    EXPECT_EQ(sel.error().Line(), "kscope: error: selection.launch: '" + bad +
                                      "' is not a launch number or range; write N or N-M, counted from 1 (3: the "
                                      "third launch; 2-4: the second to the fourth)");
  }
  cfg.launch = "";
  cfg.exclude = {"prefil"};
  sel = capture::SelectKernels(*store_, run_, cfg, 11, 1);
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().where, "selection.exclude");
}

TEST(NcuRequest, SetsSectionsAndMetricsAreCheckedAgainstTheInstalledNcu) {
  const std::string at = std::string(KSCOPE_TEST_DATA_DIR) + "/capture/ncu_catalog_h100/";
  const auto catalog = std::make_unique<capture::NcuCatalog>(
      capture::ParseNcuCatalog(testing::ReadFile(at + "list_sets.txt"), testing::ReadFile(at + "list_sections.txt"),
                               testing::Unzstd(at + "query_metrics.txt.zst")));
  ASSERT_FALSE(catalog->metrics.empty());
  config::NcuConfig full;
  full.mode = "full";
  EXPECT_EQ(capture::NcuSet(full), "full");
  EXPECT_TRUE(capture::NcuSections(full).empty());  // the set's own sections
  EXPECT_TRUE(capture::CheckRequest(*catalog, "full", {}, {}).ok());
  config::NcuConfig detailed;
  detailed.set = "detailed";
  detailed.sections = {"WarpStateStats"};
  detailed.metrics = {"lts__t_sector_hit_rate.pct"};
  EXPECT_TRUE(
      capture::CheckRequest(*catalog, capture::NcuSet(detailed), capture::NcuSections(detailed), detailed.metrics)
          .ok());
  capture::Selection sel;
  sel.warmup = 1;
  sel.launches = 1;
  capture::NcuPass pass;
  pass.filter = "regex:^k$";
  const auto argv = capture::NcuProfileArgv("ncu", detailed, sel, pass, capture::NcuMetrics(detailed), "o", {"w"});
  const std::vector<std::string> asked{"--set", "detailed", "--section", "WarpStateStats", "--metrics"};
  const auto at_set = std::search(argv.begin(), argv.end(), asked.begin(), asked.end());
  ASSERT_NE(at_set, argv.end());
  EXPECT_TRUE(at_set[asked.size()].ends_with(",lts__t_sector_hit_rate.pct"));  // after the FLOP counters

  auto bad_set = capture::CheckRequest(*catalog, "fulll", {}, {});
  ASSERT_FALSE(bad_set.ok());
  EXPECT_EQ(bad_set.error().Line(),
            "kscope: error: ncu.set: this ncu on NVIDIA H100 80GB HBM3 has no set 'fulll'; closest: 'full', "
            "'basic', 'nvlink', 'detailed'");
  auto bad_section = capture::CheckRequest(*catalog, "", {"SpeedOfLite"}, {});
  ASSERT_FALSE(bad_section.ok());
  EXPECT_EQ(bad_section.error().Line(),
            "kscope: error: ncu.sections: this ncu on NVIDIA H100 80GB HBM3 has no section 'SpeedOfLite'; closest: "
            "'SpeedOfLight', 'C2CLink', 'NumaAffinity', 'LaunchStats'");
  auto bad_suffix = capture::CheckRequest(*catalog, "", {"SpeedOfLight"}, {"lts__t_sector_hit_rate.pctt"});
  ASSERT_FALSE(bad_suffix.ok());
  EXPECT_EQ(bad_suffix.error().Line(),
            "kscope: error: ncu.metrics: 'lts__t_sector_hit_rate.pctt' has no suffix '.pctt' in ncu's naming; a ratio "
            "takes .pct or .ratio; a counter or throughput .sum, .avg, .min or .max, then optionally .per_second, "
            ".per_cycle_elapsed or .pct_of_peak_sustained_elapsed (ncu --query-metrics-mode suffix --metrics "
            "lts__t_sector_hit_rate lists them)");
  auto bad_metric = capture::CheckRequest(*catalog, "", {}, {"lts__t_sector_hitrate.pct"});
  ASSERT_FALSE(bad_metric.ok());
  EXPECT_EQ(bad_metric.error().Line(),
            "kscope: error: ncu.metrics: this ncu on NVIDIA H100 80GB HBM3 has no metric 'lts__t_sector_hitrate.pct'; "
            "closest: 'lts__t_sector_hit_rate', 'l1tex__t_sector_hit_rate', 'lts__t_sectors_op_write', "
            "'lts__t_request_hit_rate'");
  EXPECT_TRUE(capture::CheckRequest(*catalog, "", {},
                                    {"sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                     "dram__bytes_read.sum.per_second", "regex:sm__inst_executed.*"})
                  .ok());
}

}  // namespace
}  // namespace kscope
