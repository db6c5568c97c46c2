#include "analysis/names/communication.h"

#include <array>
#include <cctype>

#include "analysis/names/kernel_names.h"

namespace kscope::analysis {

namespace {

// The qualified base name in lower case without '_' (cross_device_reduce_1stage and
// crossDeviceReduce read alike).
std::string Flat(std::string_view base) {
  std::string out;
  out.reserve(base.size());
  for (char c : base) {
    if (c != '_') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

bool Has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Kernels that exchange data with peer GPUs through their memory (IPC handles, symmetric
// memory, multimem): vLLM's and SGLang's custom all-reduce (cross_device_reduce_1stage/2stage),
// TensorRT-LLM's (oneShotAllReduceKernel, twoShotAllReduceKernel, allreduce_fusion_kernel,
// lamport), PyTorch's symmetric memory (c10d::symmetric_memory::one_shot_all_reduce_kernel,
// multimem_all_reduce_kernel, barrier_kernel), DeepEP's dispatch and combine.
constexpr std::array<std::string_view, 10> kPeerMemoryWords = {
    "crossdevicereduce", "oneshotallreduce", "twoshotallreduce", "multimemallreduce", "multimemallgather",
    "customallreduce",   "allreducefusion",  "lamport",          "symmetricmemory",   "deepep::"};

CollectiveKind KindOf(std::string_view flat) {
  if (Has(flat, "allreduce") || Has(flat, "crossdevicereduce") || Has(flat, "lamport")) {
    return CollectiveKind::kAllReduce;
  }
  if (Has(flat, "reducescatter")) return CollectiveKind::kReduceScatter;
  if (Has(flat, "allgather") || Has(flat, "fcollect")) return CollectiveKind::kAllGather;
  if (Has(flat, "alltoall") || Has(flat, "deepep::")) return CollectiveKind::kAllToAll;
  if (Has(flat, "broadcast") || Has(flat, "bcast")) return CollectiveKind::kBroadcast;
  if (Has(flat, "sendrecv") || Has(flat, "send") || Has(flat, "recv") || Has(flat, "put") || Has(flat, "get")) {
    return CollectiveKind::kSendRecv;
  }
  if (Has(flat, "reduce")) return CollectiveKind::kReduce;
  return CollectiveKind::kOther;
}

}  // namespace

std::string_view CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "AllReduce";
    case CollectiveKind::kAllGather: return "AllGather";
    case CollectiveKind::kReduceScatter: return "ReduceScatter";
    case CollectiveKind::kBroadcast: return "Broadcast";
    case CollectiveKind::kReduce: return "Reduce";
    case CollectiveKind::kSendRecv: return "SendRecv";
    case CollectiveKind::kAllToAll: return "AllToAll";
    case CollectiveKind::kOther: return "Other";
  }
  return "Other";
}

std::optional<CommunicationKernel> CommunicationOf(std::string_view kernel_name) {
  return CommunicationOf(IdentifyKernel(kernel_name));
}

std::optional<CommunicationKernel> CommunicationOf(const KernelIdentity& id) {
  const std::string flat = Flat(id.base);
  if (id.library == KernelLibrary::kNccl) {
    // ncclDevKernel_<Collective>_..., ncclKernel_<Collective>_...: the collective is the
    // family's op (nccl:AllReduce); NCCL's Send and Recv run as SendRecv.
    const std::string_view op = std::string_view(id.family).substr(id.family.find(':') + 1);
    return CommunicationKernel{"NCCL", KindOf(Flat(op))};
  }
  if (Has(flat, "nvshmem")) return CommunicationKernel{"NVSHMEM", KindOf(flat)};
  for (const std::string_view word : kPeerMemoryWords) {
    if (Has(flat, word)) return CommunicationKernel{"custom all-reduce", KindOf(flat)};
  }
  return std::nullopt;
}

}  // namespace kscope::analysis
