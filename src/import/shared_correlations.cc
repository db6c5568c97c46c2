#include "import/shared_correlations.h"

#include <fmt/format.h>

namespace kscope::import {

Status CheckSharedCorrelations(const std::string& path, const ImportTarget& target, int64_t repeats,
                               const std::string& fix) {
  if (repeats <= 0) return Status::Ok();
  if (repeats > kMaxSharedCorrelations) {
    return Error{path,
                 fmt::format("{} CUDA calls repeat an earlier call's correlation id (more than {}: CUPTI gives every "
                             "call its own, so the file is corrupt or several captures were merged into it)",
                             repeats, kMaxSharedCorrelations),
                 fix};
  }
  return target.store.AddProblem(
      target.run_id, target.source_id, "CUDA calls",
      fmt::format("{} CUDA calls repeat an earlier call's correlation id in their process; their GPU operations "
                  "are linked to the first call alone",
                  repeats),
      "");
}

}  // namespace kscope::import
