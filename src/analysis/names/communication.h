// Communication kernels: the kernels that wait on a peer GPU (NCCL and NVSHMEM collectives and
// point-to-point transfers, custom all-reduce kernels over peer memory). One place says which
// kernels these are, for every view: ncu must not replay one on a single rank (its peer does
// not replay its half, and the replay waits forever), and their time is communication, not
// compute, on the rank that ran them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/names/kernel_names.h"

namespace kscope::analysis {

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kSendRecv, kAllToAll, kOther };
std::string_view CollectiveKindName(CollectiveKind kind);  // "AllReduce", "SendRecv", ... "Other"

struct CommunicationKernel {
  std::string_view library;  // "NCCL", "NVSHMEM", or "custom all-reduce" (peer-memory kernels of vLLM,
                             // TensorRT-LLM, SGLang, PyTorch's symmetric memory, DeepEP)
  CollectiveKind kind = CollectiveKind::kOther;
};

// Any spelling of a kernel's name (nsys's or ncu's demangled name, the mangled one); nullopt
// for a kernel that does not wait on a peer.
std::optional<CommunicationKernel> CommunicationOf(std::string_view kernel_name);

// The same from the name's identity (IdentifyKernel), for callers that have it already.
std::optional<CommunicationKernel> CommunicationOf(const KernelIdentity& id);

}  // namespace kscope::analysis
