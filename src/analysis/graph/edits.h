// What-if edits: the changes `kscope whatif RUN EDIT...` replays. An edit is
//
//   WHAT[@SCOPE]=FACTOR      or      graph@STAGE
//
// WHAT is kernel:TEXT (the kernels whose name holds TEXT), family:NAME (kscope's kernel family,
// kscope kernels shows it), copies, comm (communication kernels: their transfer, and at 0 no
// rank waits for another either), host (the host's work outside CUDA calls), launch (launch
// calls' own time and their latency to the GPU) or sync (at 0 the host no longer waits for the
// GPU in synchronizing calls). FACTOR scales what it names: 0 removes it, 0.5 halves it.
// SCOPE is an NVTX stage (the calls made while one of its ranges was open on their process,
// and the operations they launched) or rank:N; none means the whole run.
//
// graph@STAGE replays each instance of the stage as a CUDA graph would: no host work and no
// launch overhead inside it (synchronizing calls still wait for the GPU), the operations run
// back to back on their streams, and one graph launch of the run's median cudaGraphLaunch (or
// 10 us where the run has none) where each instance starts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace kscope::analysis::graph {

enum class EditTarget { kKernel, kFamily, kCopies, kCommunication, kHost, kLaunch, kSync, kGraph };

struct Edit {
  std::string text;  // as given
  EditTarget target = EditTarget::kKernel;
  std::string pattern;  // kernel: the text; family: the family
  // kernel: the pattern is a kernel's whole name, not a part of one (the report prices each of
  // its top kernels so); ParseEdit never sets it.
  bool whole_name = false;
  std::string scope;  // a stage's name, "rank:N", or empty
  double factor = 1;
};

// An edit from its text; an error names what is wrong and shows the form.
Result<Edit> ParseEdit(std::string_view text);

}  // namespace kscope::analysis::graph
