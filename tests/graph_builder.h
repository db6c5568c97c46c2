// Synthetic runs for the dependency graph's specification tests: threads that make CUDA calls,
// streams that run the operations they launch, in nanoseconds given by the test, without a
// store or an import.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/graph/graph_events.h"

namespace kscope::testing {

class GraphRunBuilder {
 public:
  // A host thread of process `pid`: its global thread id.
  int64_t Thread(int64_t pid, int64_t tid) { return (pid << 24) | tid; }

  // A call of `function` on `thread` from `start` to `end`; its index.
  size_t Call(int64_t thread, const std::string& function, int64_t start, int64_t end) {
    auto& c = e_.calls;
    c.start.push_back(start);
    c.end.push_back(end);
    c.global_tid.push_back(thread);
    c.correlation.push_back(next_corr_++);
    c.name.push_back(Id(function));
    return c.start.size() - 1;
  }

  // A kernel (or a copy, `kernel` false) launched by call `call`, on `stream` of `device`.
  size_t Op(size_t call, const std::string& name, int64_t start, int64_t end, int64_t stream = 7, int64_t device = 0,
            bool kernel = true) {
    auto& o = e_.ops;
    o.start.push_back(start);
    o.end.push_back(end);
    o.device.push_back(device);
    o.stream.push_back(stream);
    o.correlation.push_back(e_.calls.correlation[call]);
    o.global_pid.push_back(e_.calls.global_tid[call] & ~int64_t{0xFFFFFF});
    o.name.push_back(Id(name));
    o.is_kernel.push_back(kernel ? 1 : 0);
    o.row.push_back(static_cast<int64_t>(o.start.size() - 1));
    return o.start.size() - 1;
  }

  // cudaLaunchKernel from `start` to `end` launching `kernel` over [kstart, kend].
  size_t Launch(int64_t thread, int64_t start, int64_t end, const std::string& kernel, int64_t kstart, int64_t kend,
                int64_t stream = 7) {
    Op(Call(thread, "cudaLaunchKernel_v7000", start, end), kernel, kstart, kend, stream);
    return e_.ops.start.size() - 1;
  }

  // Kernels first, then copies: the order the graph expects (GraphEvents::Ops).
  [[nodiscard]] analysis::graph::GraphEvents Events() const {
    analysis::graph::GraphEvents e = e_;
    std::vector<size_t> order;
    for (int pass = 1; pass >= 0; --pass) {
      for (size_t i = 0; i < e_.ops.start.size(); ++i) {
        if (e_.ops.is_kernel[i] == pass) order.push_back(i);
      }
    }
    auto& o = e.ops;
    auto permute = [&](auto& v) {
      auto copy = v;
      for (size_t i = 0; i < order.size(); ++i) v[i] = copy[order[i]];
    };
    permute(o.start), permute(o.end), permute(o.device), permute(o.stream), permute(o.correlation);
    permute(o.global_pid), permute(o.name), permute(o.is_kernel), permute(o.row);
    std::unordered_map<int64_t, std::string> strings;
    for (const auto& [text, id] : ids_) strings[id] = text;
    analysis::graph::NameFunctions(e, strings);
    return e;
  }

 private:
  int64_t Id(const std::string& text) {
    return ids_.try_emplace(text, static_cast<int64_t>(ids_.size() + 1)).first->second;
  }

  analysis::graph::GraphEvents e_;
  std::unordered_map<std::string, int64_t> ids_;
  int64_t next_corr_ = 1;
};

}  // namespace kscope::testing
