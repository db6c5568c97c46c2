// What kscope knows about CUDA API function names as nsys records them (e.g.
// cudaLaunchKernel_v7000, cuMemcpyHtoD_v2, cudaStreamSynchronize_v3020).
#pragma once

#include <string>
#include <string_view>

namespace kscope::analysis {

// The name nsys's cuda_api_sum shows: a trailing version suffix of exactly 6 characters
// starting with '_v' dropped, so cudaLaunchKernel_v7000 reads cudaLaunchKernel.
std::string ApiDisplayName(std::string_view raw);

// Whether a call blocks the calling thread until the GPU has finished earlier work, judged by
// the function's name without its version (_v2, _v3020) and per-thread-stream (_ptsz, _ptds)
// suffixes: the ...Synchronize functions (cudaDeviceSynchronize, cudaStreamSynchronize,
// cudaEventSynchronize, cudaThreadSynchronize, cuCtxSynchronize, cuStreamSynchronize,
// cuEventSynchronize) and the copies without 'Async' (cudaMemcpy, cudaMemcpy2D,
// cudaMemcpyToSymbol, cudaMemcpyPeer, cuMemcpyHtoD, cuMemcpyDtoH, ...). Asynchronous copies
// from pageable memory also block, but the name cannot tell: see the pageable-memory finding.
bool SynchronizesHost(std::string_view raw);

}  // namespace kscope::analysis
