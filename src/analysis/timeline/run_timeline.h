// One run's stored GPU timeline as the derivations after an import need it, decoded from the
// store at most once per derivation: its kernels' names, grids and blocks (planned links check
// them), and its events with each operation's launch links (matching profiled launches to
// kernels, finding a launch's PyTorch op). Each part is read the first time it is asked for,
// so a derivation that needs none of it reads nothing.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/timeline/launch_links.h"
#include "analysis/timeline/nsys_events.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// The kernel stream's name, grid and block columns (kGridX ... kBlockZ), row by row.
struct KernelColumns {
  std::vector<int64_t> name;
  std::array<std::vector<int64_t>, 6> dims;  // grid x, y, z, block x, y, z
};

class RunTimeline {
 public:
  RunTimeline(store::Store& store, int64_t run_id) : store_(store), run_id_(run_id) {}

  [[nodiscard]] int64_t run_id() const { return run_id_; }
  // How many kernels the run's nsys exports brought (the stream's row count; no decoding).
  Result<int64_t> KernelCount();
  Result<const KernelColumns*> Kernels();
  Result<const NsysEvents*> Events();
  // Every operation's links to its launching call and the NVTX ranges around it on the calling
  // thread (LinkLaunches over Events, ranges never closed ending with the run's last one).
  Result<const std::vector<LaunchLink>*> Links();

 private:
  store::Store& store_;
  int64_t run_id_;
  std::optional<int64_t> kernel_count_;
  std::optional<KernelColumns> kernels_;
  std::optional<NsysEvents> events_;
  std::optional<std::vector<LaunchLink>> links_;
};

// The timelines of the runs one derivation reads (a run's own, and the discovery run its
// planned launches link to), each decoded once.
class RunTimelines {
 public:
  explicit RunTimelines(store::Store& store) : store_(store) {}
  RunTimeline& Of(int64_t run_id);

 private:
  store::Store& store_;
  std::map<int64_t, std::unique_ptr<RunTimeline>> runs_;
};

}  // namespace kscope::analysis
