// Communication kernels (analysis/names/communication.h): the kernels that wait on a peer, as
// their libraries name them, and none of the kernels of the zoo and the devset, which ran on
// one GPU.
#include "analysis/names/communication.h"

#include <gtest/gtest.h>

#include "names_support.h"

namespace kscope::analysis {
namespace {

std::string Kind(std::string_view name) {
  auto c = CommunicationOf(name);
  return c ? std::string(c->library) + " " + std::string(CollectiveKindName(c->kind)) : "compute";
}

TEST(Communication, NoKernelOfTheZooOrTheDevsetWaitsOnAPeer) {
  size_t names = 0;
  for (const char* file : {"zoo_kernel_names.tsv", "kernel_names.tsv"}) {
    for (const auto& row : testing::ReadNameRows(file)) {
      ++names;
      EXPECT_EQ(Kind(row.name), "compute") << file << ": " << row.name;
    }
  }
  EXPECT_GT(names, 900U);
}

TEST(Communication, NcclByCollective) {
  // nsys's spelling of NCCL 2.2x's kernels (docs/gpu-verification.md, issue 21), its older
  // ncclKernel_ names and the mangled form.
  EXPECT_EQ(Kind("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"),
            "NCCL AllReduce");
  EXPECT_EQ(Kind("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm *, unsigned long, ncclWork *)"), "NCCL AllReduce");
  EXPECT_EQ(Kind("ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"), "NCCL Broadcast");
  EXPECT_EQ(Kind("ncclDevKernel_AllGather_RING_LL"), "NCCL AllGather");
  EXPECT_EQ(Kind("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), "NCCL ReduceScatter");
  EXPECT_EQ(Kind("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)"), "NCCL SendRecv");
  EXPECT_EQ(Kind("ncclDevKernel_Reduce_Sum_f32_RING_LL"), "NCCL Reduce");
  EXPECT_EQ(Kind("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"), "NCCL AllReduce");
}

TEST(Communication, PeerMemoryKernelsOfOtherLibraries) {
  EXPECT_EQ(Kind("void vllm::cross_device_reduce_1stage<__nv_bfloat16, (int)2>(vllm::RankData *, vllm::RankSignals, "
                 "vllm::Signal *, __nv_bfloat16 *, int, int)"),
            "custom all-reduce AllReduce");
  EXPECT_EQ(Kind("void vllm::cross_device_reduce_2stage<float, (int)8>(vllm::RankData *, vllm::RankSignals, "
                 "vllm::Signal *, float *, int, int)"),
            "custom all-reduce AllReduce");
  EXPECT_EQ(Kind("void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, (int)16, (int)8>(float **, unsigned "
                 "long, unsigned long, float *, unsigned long, unsigned long, unsigned int **, unsigned long, unsigned "
                 "long)"),
            "custom all-reduce AllReduce");
  EXPECT_EQ(Kind("void c10d::symmetric_memory::two_shot_all_reduce_kernel<c10::BFloat16, (int)16, (int)8>()"),
            "custom all-reduce AllReduce");
  EXPECT_EQ(Kind("void tensorrt_llm::kernels::oneShotAllReduceKernel<half, (int)8>(AllReduceParams)"),
            "custom all-reduce AllReduce");
  EXPECT_EQ(Kind("void deep_ep::intranode::dispatch<(int)8, (int)768, (int)8192>(int4 *, float *)"),
            "custom all-reduce AllToAll");
  EXPECT_EQ(Kind("nvshmemi_barrier_all_kernel"), "NVSHMEM Other");
  EXPECT_EQ(Kind("void nvshmemi_reduce_kernel<float, (rdxn_ops)0>(int, float *, const float *, unsigned long)"),
            "NVSHMEM Reduce");
}

TEST(Communication, ComputeKernelsNamedAfterReductions) {
  EXPECT_EQ(Kind("void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, "
                 "at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4, (int)4>>(T3)"),
            "compute");
  EXPECT_EQ(Kind("void cudnn::fusion::fmha_reduce_head<(bool)1>(const void *, void *)"), "compute");
  EXPECT_EQ(Kind("void at::native::<unnamed>::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(T1 *)"),
            "compute");
  EXPECT_EQ(Kind("void at::native::all_reduce_kernel(int)"), "compute");
}

}  // namespace
}  // namespace kscope::analysis
