// PyTorch's own NVTX ranges, one per operator (torch.autograd.profiler.emit_nvtx, which nsys
// --pytorch=autograd-nvtx turns on): "aten::mm, seq = 12, op_id = 40" in the forward pass,
// "MmBackward0, seq = 12, op_id = 97" on the autograd thread for the backward function the
// forward op made (the sequence number it stashed), and wrappers such as
// "autograd::engine::evaluate_function: MmBackward0, op_id = 96". Shape-recording captures
// add ", sizes = [...]". They are not the user's stages: kscope uses them to tie each
// backward kernel to the forward op, and so to the user's stage, that made it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/timeline/launch_links.h"
#include "analysis/timeline/nsys_events.h"

namespace kscope::analysis {

struct TorchOpRange {
  std::string op;              // "aten::mm", "MmBackward0", "autograd::engine::evaluate_function: MmBackward0"
  std::optional<int64_t> seq;  // the autograd sequence number, when the op has one
  int64_t op_id = 0;
  bool backward = false;  // a backward function ("...Backward0", its evaluate_function wrapper)
  std::string sizes;      // the input shapes of shape-recording captures, "[[2048, 1024], []]"; "" without
};

// "aten::mm [[2048, 1024], [1024, 3584]]": the op and its input shapes; "" when it has none.
std::string ShapeText(const TorchOpRange& op);

// nullopt when `text` is not one of PyTorch's operator ranges.
std::optional<TorchOpRange> ParseTorchOpRange(std::string_view text);

// A GPU operation launched by a backward function, and the forward op's NVTX row that made it.
struct BackwardTie {
  uint32_t op;          // kernels first, then memory operations (as LaunchLink)
  int32_t forward_row;  // NVTX row of the forward op range with the same sequence number
};

// Every GPU operation launched inside a backward op range with a sequence number, tied to the
// latest forward op range of the same process and sequence number that started before it.
// `ops`: per NVTX row, its parsed op range (nullopt for other ranges); `links`: LinkLaunches.
std::vector<BackwardTie> TieBackwardToForward(const NsysEvents& events,
                                              const std::vector<std::optional<TorchOpRange>>& ops,
                                              const std::vector<LaunchLink>& links);

}  // namespace kscope::analysis
