// Stage MFU takes its FLOPs, precision and peak from compute kernels only: a profiled
// communication launch (an NCCL broadcast ncu replayed) waits on its peer, and once gave a
// step MFU of 4.08e-11% against the FP16 peak of its counters (issue 21).
#include <gtest/gtest.h>

#include "analysis/stages/stage_mfu.h"

namespace kscope {
namespace {

analysis::NcuLaunch Linked(int64_t id, const std::string& name, int64_t row) {
  analysis::NcuLaunch l;
  l.id = id;
  l.key.name = name;
  l.kernel_index = row;
  l.kernel_run = 1;
  return l;
}

TEST(StageMfuCommunication, ProfiledCommunicationLaunchesAreNotTheStagesWork) {
  const std::vector<analysis::KernelRowInfo> rows{{{7, {1, 1, 1, 128, 1, 1}}, 1000},
                                                  {{8, {132, 1, 1, 256, 1, 1}}, 2000}};
  const std::vector<analysis::NcuLaunch> launches{
      Linked(0, "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 0),
      Linked(1, "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn", 1)};
  const auto work = analysis::GatherProfiledWork(launches, 1, rows);
  ASSERT_EQ(work.configs.size(), 1U);
  EXPECT_EQ(work.configs.begin()->first, rows[1].config);
}

}  // namespace
}  // namespace kscope
