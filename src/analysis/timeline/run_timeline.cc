#include "analysis/timeline/run_timeline.h"

#include "analysis/timeline/nsys_facts.h"
#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

Result<int64_t> RunTimeline::KernelCount() {
  if (!kernel_count_) {
    auto rows = store_.StreamRows(run_id_, "kernel");
    if (!rows.ok()) return rows.error();
    kernel_count_ = *rows;
  }
  return *kernel_count_;
}

Result<const KernelColumns*> RunTimeline::Kernels() {
  if (!kernels_) {
    namespace k = store::kernel;
    auto cols = store::ReadColumns(store_.db(), run_id_, store::kKernelStream,
                                   {k::kName, k::kGridX, k::kGridY, k::kGridZ, k::kBlockX, k::kBlockY, k::kBlockZ});
    if (!cols.ok()) return cols.error();
    KernelColumns read;
    read.name = std::move((*cols)[0]);
    for (size_t d = 0; d < read.dims.size(); ++d) read.dims[d] = std::move((*cols)[1 + d]);
    kernels_ = std::move(read);
  }
  return &*kernels_;
}

Result<const NsysEvents*> RunTimeline::Events() {
  if (!events_) {
    auto loaded = LoadNsysEvents(store_, run_id_);
    if (!loaded.ok()) return loaded.error();
    events_ = std::move(loaded).value();
  }
  return &*events_;
}

Result<const std::vector<LaunchLink>*> RunTimeline::Links() {
  if (!links_) {
    auto events = Events();
    if (!events.ok()) return events.error();
    links_ = LinkLaunches(**events, OpenRangeEnd((*events)->nvtx));
  }
  return &*links_;
}

RunTimeline& RunTimelines::Of(int64_t run_id) {
  auto& timeline = runs_[run_id];
  if (!timeline) timeline = std::make_unique<RunTimeline>(store_, run_id);
  return *timeline;
}

}  // namespace kscope::analysis
