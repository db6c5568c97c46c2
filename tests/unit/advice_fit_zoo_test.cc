// Advice that fits (issue 22, item 3) on the zoo's recorded runs: a kernel near its DRAM roof
// is not told to tile for reuse, and the atlas's signals check their preconditions (a busy SM
// for "compute-bound with low tensor-pipe use", no register advice for vendor kernels whose
// register use is by design).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "analysis/atlas/atlas.h"
#include "analysis/kernels/bottleneck.h"
#include "analysis/kernels/ncu_launches.h"
#include "analysis/names/kernel_names.h"
#include "config/config.h"
#include "report/kernel_reports.h"
#include "zoo_support.h"

namespace kscope {
namespace {

store::Store NewStore() { return std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value(); }

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Issue 22: "a copy at 87.7% of DRAM peak is told to tile for reuse". decoder_infer's deep
// pass has its weights' copy at 87.6% of DRAM peak, memory-bound: its advice is to move fewer
// bytes, and no memory-bound launch at 80% of DRAM peak or more is told to tile.
TEST(AdviceFitZoo, AKernelNearItsDramRoofIsNotToldToTileForReuse) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, "decoder_infer", {"default_profile_raw.csv"});
  ASSERT_GT(run, 0);
  auto launches = analysis::LoadNcuLaunches(store, run);
  ASSERT_TRUE(launches.ok());
  const config::Config defaults;
  int64_t near_roof = 0;
  bool copy_seen = false;
  for (const auto& l : *launches) {
    const auto d = analysis::Diagnose(l, defaults.classify);
    const bool memory = d.bottleneck == analysis::Bottleneck::kMemory || d.bottleneck == analysis::Bottleneck::kCache;
    if (!memory || !d.evidence.dram_pct || *d.evidence.dram_pct < 80) continue;
    ++near_roof;
    copy_seen = copy_seen || analysis::IdentifyKernel(l.key.name).family == "elementwise:copy";
    ASSERT_FALSE(d.advice.empty());
    EXPECT_TRUE(Has(d.advice.front(), "of DRAM peak")) << d.advice.front();
    for (const auto& a : d.advice) EXPECT_FALSE(Has(a, "tiling") || Has(a, "tile the")) << l.key.name << ": " << a;
  }
  EXPECT_GT(near_roof, 0);
  EXPECT_TRUE(copy_seen);
}

// The atlas over decoder_infer's and gpt2_infer's deep passes (kscope profile's defaults):
// every family "compute-bound with low tensor-pipe use" flags has launches whose SM throughput
// ncu measured at classify.busy_pct or more, and "occupancy limited by registers" flags no
// cuBLAS, CUTLASS, cuDNN or FlashAttention family.
TEST(AdviceFitZoo, AtlasSignalsCheckTheirPreconditions) {
  auto store = NewStore();
  for (const std::string model : {"decoder_infer", "gpt2_infer", "gpt2_compile_train"}) {
    ASSERT_GT(testing::ImportZoo(store, model, {"default_profile_raw.csv"}), 0) << model;
  }
  const config::Config defaults;
  auto atlas = analysis::atlas::BuildAtlas(store, {}, analysis::atlas::Grouping::kFamily,
                                           {.classify = defaults.classify, .atlas = defaults.atlas});
  ASSERT_TRUE(atlas.ok()) << atlas.error().Line();
  // SM throughput of each family's launches, from the stored figures.
  std::map<std::string, double> busiest;
  auto q = store.db().Prepare("SELECT kernel_name, sm_pct FROM v_ncu_launch_figures WHERE sm_pct IS NOT NULL");
  ASSERT_TRUE(q.ok());
  while (q->Step()) {
    const std::string family = analysis::IdentifyKernel(q->Text(0)).family;
    busiest[family] = std::max(busiest[family], q->Double(1));
  }
  int64_t checked = 0;
  for (const auto& s : atlas->signals) {
    if (s.id == "matmul_low_tensor") {
      for (const auto& f : s.families) EXPECT_GE(busiest[f.family], defaults.classify.busy_pct) << f.family;
      ++checked;
    }
    if (s.id == "register_limited_occupancy") {
      for (const auto& f : s.families) {
        EXPECT_TRUE(f.library != "cuBLAS" && f.library != "CUTLASS" && f.library != "cuDNN" &&
                    f.library != "FlashAttention")
            << f.family << " " << f.library;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
}

// What `kscope kernel` says of each profiled kernel of a zoo model's recorded deep pass: its
// text fields by name, and its advice lines in order.
struct KernelSays {
  std::map<std::string, std::string> fields;
  std::vector<std::string> advice;
};
std::vector<KernelSays> EveryKernelSays(const std::string& model) {
  auto store = NewStore();
  const int64_t run = testing::ImportZoo(store, model, {"default_profile_raw.csv"});
  EXPECT_GT(run, 0);
  const config::Config defaults;
  auto table = report::KernelsTable(store, run, defaults.classify);
  EXPECT_TRUE(table.ok()) << table.error().Line();
  std::vector<KernelSays> out;
  for (size_t id = 0; table.ok() && id < table->rows.size(); ++id) {
    auto detail = report::KernelDetailTables(store, run, std::to_string(id), defaults.classify);
    EXPECT_TRUE(detail.ok()) << detail.error().Line();
    if (!detail.ok()) continue;
    KernelSays k;
    for (const auto& row : detail->front().rows) {
      const std::string field = std::get<std::string>(row[0]);
      if (const auto* text = std::get_if<std::string>(&row[1])) {
        k.fields[field] = *text;
        if (field.starts_with("Advice")) k.advice.push_back(*text);
      }
    }
    out.push_back(std::move(k));
  }
  return out;
}

// `kscope kernel` on a compiled run (gpt2_compile_train: torch.compile, 6705 Triton launches):
// a launch-bound kernel's advice says the workload already uses torch.compile instead of
// telling it to (issue 22: advice that contradicts the workload). Every profiled kernel's advice
// is read; at least one is launch-bound.
TEST(AdviceFitZoo, AKernelOfACompiledRunIsNotToldToUseTorchCompile) {
  int64_t launch_bound = 0;
  for (auto& k : EveryKernelSays("gpt2_compile_train")) {
    if (k.fields["Class"] == "launch") ++launch_bound;
    for (const auto& a : k.advice) {
      if (Has(a, "torch.compile")) EXPECT_TRUE(Has(a, "already uses torch.compile")) << a;
    }
  }
  EXPECT_GT(launch_bound, 0);
}

// `kscope kernel` on the CUDA-graph loop profiled with the defaults (graph_replay_profiled):
// cuBLAS's xmma GEMMs and PyTorch's CUTLASS attention, latency-bound with their occupancy
// limited by registers, are not told to raise occupancy, cut registers or add ILP (their code is
// the library's); their advice is about what the library is asked. Issue 22: warp-specialized
// vendor kernels got register advice.
TEST(AdviceFitZoo, AVendorKernelIsNotToldToTuneItsRegisters) {
  int64_t vendor_latency = 0, own_latency = 0;
  for (auto& k : EveryKernelSays("graph_replay_profiled")) {
    if (k.fields["Class"] != "latency/occupancy") continue;
    const std::string& library = k.fields["Library"];
    const bool vendor =
        library == "cuBLAS" || library == "CUTLASS" || library == "cuDNN" || library == "FlashAttention";
    ++(vendor ? vendor_latency : own_latency);
    bool tune = false;
    for (const auto& a : k.advice) {
      tune = tune || Has(a, "raise occupancy") || Has(a, "(ILP)") || Has(a, "launch_bounds") || Has(a, "maxrregcount");
    }
    EXPECT_NE(tune, vendor) << k.fields["Name"] << " (" << library << ")";
  }
  EXPECT_GE(vendor_latency, 2);  // the xmma GEMM and the CUTLASS attention
  EXPECT_GE(own_latency, 1);     // ATen's layer norm keeps the tuning advice
}

}  // namespace
}  // namespace kscope
