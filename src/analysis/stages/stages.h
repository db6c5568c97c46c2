// NVTX stages: each range name (and style) as one stage, projected onto the GPU as nsys's
// nvtx_gpu_proj_sum projects it (the GPU operations whose launching call lies inside the
// range on the same thread, matched by correlation id), with nested ranges as a tree. The
// figures nsys also prints (instances, range time, projected time, GPU operations) come from
// the run's nvtx_projection_summary, which the tests check against nsys's own CSV.
//
// What kscope adds is one attribution used by every other number of a stage: the GPU work
// launched inside it by its own thread (nsys's rule) and by the process's other threads
// while it was open (PyTorch runs the backward pass on its autograd thread, NCCL and data
// loaders have theirs), kept apart so that each part can be shown; and each instance on its
// own, for the steady state (analysis/stages/stage_steady.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/timeline/intervals.h"
#include "analysis/timeline/nsys_events.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

struct StageKernel {
  int64_t name_id = 0;  // demangled kernel name (string id)
  int64_t launches = 0;
  int64_t total_ns = 0;
};

// GPU work that other threads of the stage's process launched while the stage was open.
struct StageThread {
  int64_t global_tid = 0;  // nsys global thread id
  std::string name;        // the thread's name (e.g. 'pt_autograd_0'); empty when unknown
  int64_t ops = 0, kernels = 0, kernel_ns = 0, memops = 0, memop_ns = 0;
};

// One range of a stage, and the GPU work launched inside it (all threads).
struct StageInstance {
  int64_t start = 0;     // the range's start on the CPU
  int64_t range_ns = 0;  // its duration on the CPU
  int64_t end = 0;       // the later of its end and the end of the last GPU work launched inside
  int64_t ops = 0, kernel_ns = 0, memop_ns = 0;
  int64_t global_pid = 0;  // the process (rank) whose thread opened the range: nsys's global id
  [[nodiscard]] int64_t wall_ns() const { return end - start; }
};

// The backward pass of the forward ops a stage ran (PyTorch's autograd NVTX ranges tie them:
// analysis/stages/torch_ops.h), by forward op.
struct BackwardOfOp {
  std::string op;  // the forward op ("aten::mm")
  int64_t ops = 0, kernel_ns = 0;
};

// NVTX domains that libraries emit their own ranges in (one per library call).
bool IsLibraryDomain(std::string_view domain);

struct Stage {
  int id = 0;
  bool torch_op = false;  // one of PyTorch's operator ranges, not a stage of the user's
  bool library = false;   // a range a library emits in its own domain (CCCL, NCCL): not a stage either
  std::string name;       // as nsys prints it: 'domain:text' (':decode' in the default domain)
  std::string text;       // the range's own text ('decode')
  std::string domain;     // its NVTX domain ('' for the default one)
  std::string style;      // 'PushPop' or 'StartEnd'
  int parent = -1;        // id of the enclosing stage (the tightest enclosing range on the thread)
  int depth = 0;
  int64_t instances = 0;  // ranges of this name
  int64_t range_ns = 0;   // their summed durations on the CPU (nsys's nvtx_sum: Total Time)
  // From the projection, as nsys computes it (0 when no GPU work was launched inside):
  int64_t proj_instances = 0;  // instances with GPU work (nsys: Range Instances)
  int64_t proj_ns = 0;         // summed projected durations (nsys: Total Proj Time)
  int64_t proj_range_ns = 0;   // summed range durations of those instances (nsys: Total Range Time)
  int64_t gpu_ops = 0;         // distinct GPU operations launched inside (nsys: Total GPU Ops)
  // The work launched inside, by the stage's own thread and by the process's other threads
  // (each operation once per stage):
  int64_t ops = 0, kernels = 0, kernel_ns = 0, memops = 0, memop_ns = 0;
  // ... of which other threads launched these, thread by thread (most work first):
  int64_t other_ops = 0, other_kernel_ns = 0, other_memop_ns = 0;
  std::vector<StageThread> other_threads;
  std::vector<int64_t> kernel_rows;          // kernel stream rows launched inside, each once
  std::vector<int32_t> kernel_instance;      // for each of kernel_rows, its instance
  std::vector<StageKernel> kernels_by_time;  // by kernel name, largest total first
  std::vector<StageInstance> instance_list;  // in start order
  // The GPU work of the backward functions of the forward ops run inside this stage, wherever
  // it ran (captures with PyTorch's autograd NVTX ranges only):
  int64_t backward_ops = 0, backward_kernel_ns = 0, backward_memop_ns = 0;
  std::vector<BackwardOfOp> backward_by_op;  // largest kernel time first
  std::vector<TimeWindow> windows;           // each instance: start to end, in start order
};

// Stages in the order of nsys's nvtx_gpu_proj_sum report (projected time, largest first);
// `id` is the position and `parent` indexes the vector.
// `events`: the run's events when the caller has them loaded (else they are read here).
Result<std::vector<Stage>> ComputeStages(store::Store& store, int64_t run_id, const NsysEvents* events = nullptr);

// Puts `stages` in nvtx_gpu_proj_sum's order (projected time, largest first, then name and
// style); ids and parents follow it.
void SortStagesAsNsys(std::vector<Stage>& stages);

// A range's style as nsys's reports name it: "PushPop" or "StartEnd".
std::string NvtxStyle(int64_t event_type);

// The name a stage goes by in kscope's views: its text in the default domain ('decode'),
// 'domain:text' in a named one.
std::string DisplayName(const Stage& stage);

}  // namespace kscope::analysis
