// What a run's dependency graph is built from, column by column: its GPU operations (kernels,
// then copies and sets) with the stream each ran on, and its CUDA API calls with the thread
// that made them. Loaded from the store for any run (nsys exports and PyTorch profiler
// traces alike), or made by a test (tests/graph_builder.h).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis::graph {

// How a CUDA call takes part in the graph, from its function's name.
enum class CallRole : uint8_t {
  kOther,        // returns on its own (cudaStreamIsCapturing, cuKernelGetName...)
  kSynchronize,  // waits for the GPU by design (analysis::SynchronizesHost: ...Synchronize, blocking copies)
};

struct GraphEvents {
  struct Ops {  // kernels first, then copies and sets: the row in their own stream at `row`
    std::vector<int64_t> start, end, device, stream, correlation, global_pid, name;
    std::vector<uint8_t> is_kernel;
    std::vector<int64_t> row;  // the kernel or memop stream row
  } ops;
  struct Calls {
    std::vector<int64_t> start, end, global_tid, correlation, name;
  } calls;
  struct Marks {  // NVTX range starts and ends: the host thread that made each, and when
    std::vector<int64_t> time, global_tid;
  } marks;
  // Per call name id (calls.name): its role and its display name (ApiDisplayName).
  std::vector<int64_t> function_ids;  // the distinct call names
  std::vector<CallRole> function_role;
  std::vector<std::string> function_name;
  // Per op name id: the name (kernel names demangled; "[CUDA memcpy Host-to-Device]"...).
  std::vector<int64_t> op_name_ids;
  std::vector<std::string> op_names;

  [[nodiscard]] size_t function_of(int64_t name_id) const;  // index into function_*
};

// Fills function_* and op_names from the names the columns hold (`strings`: id -> text).
void NameFunctions(GraphEvents& e, const std::unordered_map<int64_t, std::string>& strings);

Result<GraphEvents> LoadGraphEvents(store::Store& store, int64_t run_id);

}  // namespace kscope::analysis::graph
