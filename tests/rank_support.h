// Per-rank figures of a multi-GPU job computed straight from nsys exports, for tests that hold
// the report's distributed view (report/run_report.h's `ranks`) against them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/names/communication.h"
#include "util/sqlite.h"

namespace kscope::testing {

struct ExportKernel {
  int64_t start = 0, end = 0;
  std::string name;  // demangled
};

// The kernels of an export, one list per process in process order (globalPid), each by
// start; `offset_ns` is added to every time (a node's place in a job of several).
inline std::vector<std::vector<ExportKernel>> KernelsByProcess(const std::string& export_path, int64_t offset_ns = 0) {
  std::vector<std::vector<ExportKernel>> out;
  auto db = sql::Db::Open(export_path, sql::OpenMode::kReadOnly);
  if (!db.ok()) return out;
  auto q = db->Prepare(
      "SELECT dense_rank() OVER (ORDER BY k.globalPid) - 1, k.start, k.end, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
      "JOIN StringIds s ON s.id = k.demangledName ORDER BY k.globalPid, k.start");
  if (!q.ok()) return out;
  while (q->Step()) {
    const auto r = static_cast<size_t>(q->Int(0));
    if (out.size() <= r) out.resize(r + 1);
    out[r].push_back({q->Int(1) + offset_ns, q->Int(2) + offset_ns, q->Text(3)});
  }
  return out;
}

// One process's kernel time, its communication share and, per collective kind (as
// analysis::CollectiveKindName spells it), the count and time of its kernels.
struct ProcessTimes {
  int64_t total = 0, comm = 0;
  std::map<std::string, std::pair<int64_t, int64_t>> kinds;
};
inline ProcessTimes TimesOf(const std::vector<ExportKernel>& kernels) {
  ProcessTimes t;
  for (const auto& k : kernels) {
    t.total += k.end - k.start;
    if (auto c = analysis::CommunicationOf(k.name)) {
      t.comm += k.end - k.start;
      auto& kind = t.kinds[std::string(analysis::CollectiveKindName(c->kind))];
      ++kind.first;
      kind.second += k.end - k.start;
    }
  }
  return t;
}

// Time in which a communication kernel runs and no compute kernel does, by a sweep over the
// kernels' edges.
inline int64_t ExposedCommunication(const std::vector<ExportKernel>& kernels) {
  std::vector<std::tuple<int64_t, int, int>> edges;  // time, +1 or -1, communication or not
  for (const auto& k : kernels) {
    const int comm = analysis::CommunicationOf(k.name) ? 1 : 0;
    edges.emplace_back(k.start, 1, comm);
    edges.emplace_back(k.end, -1, comm);
  }
  std::sort(edges.begin(), edges.end());
  int64_t exposed = 0, last = 0;
  int active_comm = 0, active_compute = 0;
  for (const auto& [t, d, comm] : edges) {
    if (active_comm > 0 && active_compute == 0) exposed += t - last;
    last = t;
    (comm ? active_comm : active_compute) += d;
  }
  return exposed;
}

// Each rank's wait at its collectives: the i-th collective of a kind on every rank is one
// collective, which starts for all at its last rank's start; a rank waits that less its own.
inline std::vector<int64_t> CollectiveWaits(const std::vector<std::vector<ExportKernel>>& ranks) {
  std::map<std::pair<std::string, size_t>, std::vector<std::pair<size_t, int64_t>>> collectives;
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::map<std::string, size_t> seen;
    for (const auto& k : ranks[r]) {
      auto c = analysis::CommunicationOf(k.name);
      if (!c) continue;
      const std::string kind(analysis::CollectiveKindName(c->kind));
      collectives[{kind, seen[kind]++}].push_back({r, k.start});
    }
  }
  std::vector<int64_t> wait(ranks.size(), 0);
  for (const auto& [key, starts] : collectives) {
    if (starts.size() != ranks.size()) continue;
    int64_t last = 0;
    for (const auto& s : starts) last = std::max(last, s.second);
    for (const auto& [r, start] : starts) wait[r] += last - start;
  }
  return wait;
}

}  // namespace kscope::testing
