// The message sizes of a run's communication kernels, where its capture gave them
// (collective_message: a PyTorch profiler trace's NCCL kernels; nsys exports have none).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// Kernel row (in the run's kernel stream) -> the collective's message size in bytes: the larger
// of its input and output message (an all-gather's output, a reduce-scatter's input, an
// all-reduce's either), the size nccl-tests reports for a collective.
using CollectiveBytes = std::unordered_map<int64_t, int64_t>;

Result<CollectiveBytes> LoadCollectiveBytes(store::Store& store, int64_t run_id);

}  // namespace kscope::analysis
