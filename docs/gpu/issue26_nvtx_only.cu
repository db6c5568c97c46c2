// NVTX ranges and no CUDA at all (host code only): the export has NVTX data but no CUDA API
// calls, kernels or memory operations (issue 26).
#include <cstdio>
#include <unistd.h>
#include <nvtx3/nvToolsExt.h>
int main() {
  for (int i = 0; i < 3; i++) {
    nvtxRangePushA("outer"); nvtxRangePushA("inner"); usleep(2000); nvtxRangePop(); usleep(1000); nvtxRangePop();
  }
  nvtxRangeId_t r = nvtxRangeStartA("startend"); usleep(1000); nvtxRangeEnd(r);
  printf("done\n");
}
