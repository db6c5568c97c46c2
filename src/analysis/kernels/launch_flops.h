// The floating-point work of one profiled launch, per precision, from ncu's counters: the
// executed FP64, FP32 and FP16 instructions (an FMA is 2 FLOPs, a packed half2 FMA 4, as
// ncu's roofline sections count them) and the tensor pipes' operations per operand type
// (ncu counts a tensor operation as one FLOP: an H100's dense BF16 path does 540,672 of them
// per cycle, 989 TFLOP/s at 1.83 GHz). The same counters, in the same list, are what
// `kscope profile` asks ncu for by default (ncu.flops), so every profiled launch has them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/kernels/ncu_launches.h"

namespace kscope::analysis {

// The ncu metrics behind LaunchFlops and the roofline (ncu --metrics), each once, in a fixed
// order: the counters, the roofline's rates and peaks (RooflineMetrics), DRAM bytes, time.
const std::vector<std::string>& FlopMetrics();

// FLOPs per precision ("FP64", "FP32", "FP16", "Tensor BF16", "Tensor FP16", "Tensor TF32",
// "Tensor FP8"), only those the launch did; empty when it has none of the counters. Counts
// come from the `.sum` counters, else from the roofline's rates times the duration.
std::map<std::string, double> LaunchFlops(const NcuLaunch& launch);

// True when the launch carries the FLOP counters (a zero result then means no FP work).
bool HasFlopCounters(const NcuLaunch& launch);

}  // namespace kscope::analysis
