// Reads a Kineto trace (torch.profiler's export_chrome_trace, Chrome trace event JSON) as a
// stream of SAX events, with no document tree: each trace event is handed to a sink as soon
// as its object closes, and only the fields kscope uses are kept (the rest of `args` is
// skipped as it streams by). Bytes that are not UTF-8, a cut file and corrupt gzip data are
// errors, with the byte where they were found.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "import/kineto/trace_input.h"
#include "util/status.h"

namespace kscope::import::kineto {

// The arguments of a trace event that kscope reads; each holds the value's JSON text
// (numbers as written, strings unquoted, arrays as "[[2, 1024], []]"); empty when absent.
enum class Arg : uint8_t {
  kCorrelation,  // "correlation": links a CUDA call to its GPU operations
  kExternalId,   // "External id" ("external id" on GPU work and CUDA calls up to PyTorch 1.10)
  kDevice,       // "device"; "inDevice" on a peer-to-peer copy (the device it ran on)
  kContext,      // "context"; "inContext" on a peer-to-peer copy
  kStream,       // "stream"
  kBytes,        // "bytes" (copies, sets)
  kRegisters,    // "registers per thread"
  kSequence,     // "Sequence number" (autograd)
  kName,         // "name" (metadata events: thread_name, process_name)
  kInputDims,    // "Input Dims" (record_shapes=True); "Input dims" in PyTorch 1.8
  kGrid,         // "grid" [x, y, z]
  kBlock,        // "block" [x, y, z]
  kInNelems,     // "In msg nelems": a collective's input elements (NCCL kernels, record_param_comms)
  kOutNelems,    // "Out msg nelems": its output elements
  kDtype,        // "dtype": their element type ("Float", "BFloat16")
  kCount
};

struct TraceEvent {
  std::string ph, cat, name;
  std::string pid, tid;  // as written: numbers, or strings for the profiler's own rows
  std::string ts, dur;   // number text; empty when absent
  std::array<std::string, static_cast<size_t>(Arg::kCount)> args;
  size_t offset = 0;  // where the event's object ended in the (inflated) text

  [[nodiscard]] const std::string& arg(Arg a) const { return args[static_cast<size_t>(a)]; }
};

// One entry of the trace's deviceProperties.
struct DeviceProperty {
  std::optional<int64_t> id, total_memory, compute_major, compute_minor, sms;
  std::string name;
};

// The trace's distributedInfo (torch.distributed jobs).
struct DistributedInfo {
  std::optional<int64_t> rank, world_size;
  std::string backend, nccl_version;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // A top-level scalar ("schemaVersion", "displayTimeUnit", "cuda_driver_version", ...).
  virtual Status OnTopLevel(std::string_view key, std::string_view value) = 0;
  // The traceEvents array opens: what the header held before it has been handed over.
  virtual Status OnEventsBegin() { return Status::Ok(); }
  virtual Status OnDevice(const DeviceProperty& device) = 0;
  virtual Status OnDistributed(const DistributedInfo& info) = 0;
  virtual Status OnEvent(const TraceEvent& event) = 0;
};

enum class ReadMode : uint8_t {
  kWhole,   // the header and every event
  kHeader,  // the top-level keys wherever they are; the events passed over unread
};

// Streams the trace into `sink`. An error names what is wrong and where (a byte offset of the
// JSON text); the sink's own errors come back as they are.
Status ReadTrace(TraceInput& input, TraceSink& sink, ReadMode mode = ReadMode::kWhole);

}  // namespace kscope::import::kineto
