// What follows an ncu run that the progress watchdog stopped inside a launch of a compute
// kernel, in a job of several ranks under one kscope (kscope profile -- torchrun ...): ncu
// replays a launch of the profiled rank while the other ranks run on, and now and then that
// replay makes no progress at all; a new run of the job got past tp_infer's stalled launch,
// while fsdp_train's stopped at the same kernel twice (docs/gpu/issue21_hang/README.md). So
// the launches that run did not reach get an ncu run of their own; a kernel that stalled twice
// is left out, and the retries are bounded, so that the deep pass always ends with what it
// gathered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "capture/selection.h"

namespace kscope::capture {

struct StallRetry {
  std::optional<NcuPass> pass;    // the launches left to profile (nullopt: none, or only left-out kernels)
  std::optional<size_t> stalled;  // the kernel (index into Selection::kernels) of the launch it stalled at
  std::vector<size_t> left_out;   // kernels of the remaining launches that stalled twice: not retried
  int64_t launches_left_out = 0;  // their planned launches that were not profiled
  int64_t unreached = 0;          // planned launches of the pass from the stalled one on
};

// `pass` stopped after profiling its first `profiled` launches (ncu's order, as
// NcuPass::profiled_rows lists them). `stalls` counts the stalls per kernel so far and gets
// this one added. The retry pass holds every kernel with a launch at or after the stalled one,
// except those that stalled twice, and profiles all of their planned launches again (ncu's
// per-configuration counts start over in a new run of the workload); its rows keep ncu's order.
// A window over a growing shape's sizes (pass.skip >= 0) is not retried.
StallRetry RetryAfterStall(const Selection& sel, const NcuPass& pass, int64_t profiled, std::map<size_t, int>& stalls);

// The line that tells what the retry does (or why there is none), for the run's notes.
std::string DescribeRetry(const Selection& sel, const StallRetry& retry, size_t pass_number, size_t retry_number,
                          size_t max_retries);

}  // namespace kscope::capture
