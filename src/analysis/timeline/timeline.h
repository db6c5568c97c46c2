// Timeline diagnosis of an nsys run: how much of the time the GPU works, where it waits and
// what the host did meanwhile, whether the host cannot launch work fast enough, and what
// host-device copies cost. Events are loaded once (LoadTimelineEvents), then diagnosed per
// set of time windows: the whole run, or the instances of one NVTX stage.
//
// Definitions:
// - Windows: the union of the given windows; none given, the run's span (first start to
//   last end of any GPU operation or CUDA API call). Wall time is the union's length.
// - Busy: the GPU is busy while any kernel, copy or memset runs on any device or stream (the
//   union of their intervals, all devices merged), clipped to the windows. A gap is a
//   maximal idle interval inside one window, window edges included.
// - Counts, bytes and durations take the operations that start inside the windows; shares of
//   time take what overlaps them, clipped to them.
// - Launch rate: GPU operations (kernels, copies, sets) started per second of wall time; the
//   mean launch interval is wall time per operation.
// - Launch-bound: at least launch_bound_min_kernels kernels, the GPU busy less than
//   launch_bound_busy_pct of the time, the median kernel shorter than short_kernel_us, and
//   the mean launch interval longer than the median kernel: work arrives more slowly than
//   the GPU finishes it, so the host's issuing of work sets the pace. Size: the GPU's idle
//   share, which CUDA graphs or torch.compile recover in large part (roughly: not all of it
//   need be launch overhead).
// - Synchronization: time some thread spends in a call that blocks until the GPU has
//   finished (SynchronizesHost: the ...Synchronize functions and copies without 'Async'),
//   found where the GPU then runs dry: idle gaps of min_gap_us or more that start while such a
//   call is under way (the GPU finished what was queued and the host, back from the call,
//   has queued nothing yet) take more than sync_pct of the time too. A host that waits while
//   the GPU works through a full queue (a loop far ahead of the GPU, a final synchronize after
//   a replayed graph) costs nothing and is not a finding.
// - Pageable: a copy whose host side is pageable memory (CUPTI memory kind 0).
// Every finding's size is a share of the wall time, so findings sort by it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/timeline/intervals.h"
#include "analysis/timeline/timeline_events.h"

namespace kscope::analysis {

struct TimelineThresholds {                // config keys timeline.*
  double launch_bound_busy_pct = 50;       // a GPU busier than this is not starved
  double short_kernel_us = 10;             // launch-bound needs a median kernel shorter than this
  int64_t launch_bound_min_kernels = 100;  // ... and at least this many kernels
  int64_t min_gap_us = 100;                // shorter idle gaps are not reported one by one
  double idle_gap_pct = 10;                // gpu_idle: gaps of min_gap_us or more above this share
  double copy_pct = 10;                    // host_device_copies: HtoD and DtoH above this share
  double pageable_pct = 1;                 // pageable_memory: pageable copies above this share
  double sync_pct = 5;                     // synchronization: synchronizing calls above this share
  size_t largest_gaps = 5;                 // gaps listed with what the host did
  size_t gap_host_functions = 5;           // API functions listed per gap
  size_t bins = 200;                       // busy strip resolution
};

// A slice of the windows' time (the windows laid end to end and cut into equal parts); start
// and end are timestamps, and a bin that spans the space between two windows counts only
// the windows' part.
struct BusyBin {
  int64_t start = 0, end = 0;
  double busy_pct = 0;
};

// CUDA API time of one function: calls overlapping an interval, ns of them inside it.
struct HostActivity {
  std::string api;  // ApiDisplayName
  int64_t calls = 0;
  int64_t ns = 0;  // summed over threads, so it can exceed the interval
};

struct Gap {
  int64_t start = 0, end = 0;
  int64_t api_ns = 0;              // time some thread was inside a CUDA call
  int64_t sync_ns = 0;             // ... inside a synchronizing call
  std::vector<HostActivity> host;  // largest first, at most gap_host_functions
};

struct CopyTotals {
  int64_t count = 0, bytes = 0, ns = 0;
};

struct CopyStats {
  CopyTotals htod, dtoh, dtod, ptop, other, memset;  // by direction (CopyDirection)
  CopyTotals pageable, pinned;                       // copies by host side (HostMemory)
  int64_t host_device_busy_ns = 0;                   // union of HtoD and DtoH copies, clipped to the windows
  int64_t pageable_busy_ns = 0;                      // union of pageable copies, clipped
};

// What a finding's fix is worth: the what-if edit the fix implies (analysis/graph/edits.h),
// replayed over the run's steps (analysis/graph/whatif.h).
struct FindingWorth {
  std::string edit;          // e.g. "graph@decode"
  std::string steps;         // the step set it was priced on ("step", "iteration")
  double step_ns = 0;        // that step, as replayed (median)
  double saving_ns = 0;      // per step, predicted
  double saving_pct = 0;     // of the step
  bool upper_bound = false;  // the edit removes the whole cost; the fix recovers part of it
};

struct Finding {
  std::string kind;  // gpu_idle, launch_bound, host_device_copies, pageable_memory, synchronization
  std::string title;
  std::string detail;
  double size = 0;        // share of the wall time, percent
  std::string size_unit;  // "% of wall time"
  std::string fix;
  std::optional<FindingWorth> worth{};  // set by the report where the run has steps
};

struct TimelineDiagnosis {
  std::vector<TimeWindow> windows;  // the merged windows diagnosed
  int64_t wall_ns = 0;
  int64_t gpu_busy_ns = 0;
  double gpu_busy_pct = 0;
  int64_t kernels = 0, kernel_ns = 0;  // kernels started in the windows, their summed durations
  int64_t memops = 0;                  // copies and sets started in the windows
  double median_kernel_us = 0;
  double launches_per_s = 0;
  double mean_launch_interval_us = 0;
  int64_t long_gaps = 0, long_gap_ns = 0;      // idle gaps of min_gap_us or more
  int64_t sync_ns = 0;                         // union of synchronizing calls, clipped
  int64_t idle_after_sync_ns = 0;              // long gaps that start during a synchronizing call
  std::vector<HostActivity> synchronizations;  // by function, largest first
  std::vector<BusyBin> bins;
  std::vector<Gap> largest_gaps;  // gaps of min_gap_us or more, longest first
  CopyStats copies;
  std::vector<Finding> findings;  // those that apply, largest first
};

// `windows` empty: the whole run; otherwise the union of the windows (any order, may overlap).
TimelineDiagnosis DiagnoseTimeline(const TimelineEvents& events, std::span<const TimeWindow> windows,
                                   const TimelineThresholds& t);

}  // namespace kscope::analysis
