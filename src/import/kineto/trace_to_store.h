// Writes one Kineto trace's events into a run as they stream by (kernels, copies and sets,
// CUDA calls through the store's event writers), holding only what the end of the file
// needs: the CUDA calls' links (time span, thread, correlation id), the ranges to nest (CPU
// ops and record_function ranges), thread names. Finish() then nests and writes the ranges,
// links each GPU operation to its launching call and the ranges around it (as the nsys
// importer does, into the run's facts), and counts what the trace lacks.
//
// Header keys in any order (issue 39). Rows are written as the events stream by, so what an
// event's row needs from the header must be known before the first event; only the rank is:
//  - times: "ts" and "dur" are microseconds in every Kineto, "displayTimeUnit" ("ms" or "ns")
//    is only the unit a viewer shows them in, so it is not read (docs/kineto.md, "Times");
//  - deviceProperties, schemaVersion, the CUDA versions: used by Finish(), wherever they were;
//  - distributedInfo: its rank goes into every process id (GlobalPid) when the trace is one of
//    several in its run (ImportTarget::timeline_of_several). When it has not come by the time
//    traceEvents opens, OnEventsBegin scans the file's text for the key (a gzip file inflated
//    again) and, where it is there, reads the file through for its header alone
//    (ReadMode::kHeader) before the first event. Rewriting times
//    or ids already written instead would mean reading back chunks the event writers have
//    flushed and the run's facts; a second pass costs time only for traces whose writer put
//    distributedInfo last, never for torch.profiler's, which write it first. A trace alone gets
//    no rank in its ids, wherever its distributedInfo is: it names the run's rank
//    (facts.launched_rank).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "import/importer.h"
#include "import/kineto/trace_reader.h"
#include "import/kineto/trace_rows.h"
#include "import/kineto/trace_time.h"
#include "store/event_writer.h"
#include "util/file_hash.h"

namespace kscope::import::kineto {

inline constexpr int64_t kMaxProblemDetails = 200;  // problems stored in detail per file; the rest counted

class TraceToStore final : public TraceSink {
 public:
  TraceToStore(const std::string& path, const ImportTarget& target);

  Status OnTopLevel(std::string_view key, std::string_view value) override;
  // Reads the header ahead when the rank is needed and has not come (above).
  Status OnEventsBegin() override;
  Status OnDevice(const DeviceProperty& device) override;
  Status OnDistributed(const DistributedInfo& info) override;
  Status OnEvent(const TraceEvent& e) override;

  // After the last event: the ranges, the links, the problems; what the trace says of the run.
  Result<ImportResult> Finish();

 private:
  struct ApiLinks {  // per CUDA call, what linking it needs
    std::vector<int64_t> start, end, global_tid, correlation;
  };
  struct Span {
    int64_t start, end;
  };

  Status OnKernel(const TraceEvent& e, Span t);
  Status OnMemop(const TraceEvent& e, Span t, bool memset);
  Status OnCudaCall(const TraceEvent& e, Span t);
  Status OnRange(const TraceEvent& e, Span t, std::string_view text);
  Status OnMetadata(const TraceEvent& e);
  Status OnCollectiveMessage(const TraceEvent& e, int64_t kernel_row);
  Status WriteCollectiveMessages();
  Status OnGpuEvent(const TraceEvent& e, Span t, EventKind kind);
  Status Problem(const TraceEvent& e, std::string_view what, bool skipped = true);
  Result<int64_t> Intern(std::string_view s);
  std::optional<Span> TimesOf(const TraceEvent& e);
  std::optional<int64_t> PidOf(const TraceEvent& e) const;
  int64_t HostPid() const { return GlobalPid(host_pid_.value_or(0), rank_); }
  Status WriteRanges();
  void LinkLaunches();
  Status CountUnlaunched();
  Status WriteThreadNames();
  store::Manifest Learned() const;

  const std::string& path_;
  const ImportTarget& target_;
  bool events_begun_ = false, distributed_ = false;  // traceEvents opened; distributedInfo read
  std::optional<int64_t> host_pid_, rank_, world_size_, driver_, runtime_;
  std::string schema_version_;
  std::map<int64_t, DeviceProperty> devices_;
  std::map<int64_t, int64_t> kernels_per_device_;
  store::EventWriter kernels_, memops_, api_;
  std::vector<TraceEvent> pending_gpu_;  // GPU events before the first CPU event named the process
  // This file's part of the run's facts starts here (earlier files of the run come first).
  size_t kernel_base_, memop_base_;
  std::vector<int64_t> kernel_pid_, memop_pid_;  // this file's operations' processes
  ApiLinks api_links_;
  std::vector<std::array<int64_t, store::nvtx::kCount>> ranges_;
  std::map<int64_t, std::string> thread_names_;  // global tid -> name
  struct TextHash {  // looks strings up by string_view, without making a std::string of each
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return kscope::TextHash(s); }
  };
  std::unordered_map<std::string, int64_t, TextHash, std::equal_to<>> strings_;
  std::string op_text_;  // the current CPU op's range text (OpRangeText), its buffer reused
  std::map<std::string, int64_t> unknown_categories_;  // category -> events
  struct CollectiveMessage {
    int64_t kernel_row, in_bytes, out_bytes;
  };
  std::vector<CollectiveMessage> collectives_;  // the NCCL kernels' message sizes
  std::vector<bool> launched_;                  // per operation of the run: linked to its call
  int64_t rows_read_ = 0, rows_skipped_ = 0, problems_ = 0, unlaunched_ = 0, past_window_ = 0;
  int64_t shared_correlations_ = 0;    // calls repeating an earlier call's correlation id
  int64_t unread_kernels_ = 0;         // kernel events skipped as bad
  std::string first_unread_kernel_;    // why the first was, and where
  std::optional<int64_t> window_end_;  // the profiler's "Record Window End"
};

}  // namespace kscope::import::kineto
