#include "analysis/timeline/nsys_summaries.h"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "analysis/names/api_names.h"
#include "analysis/timeline/duration_stats.h"
#include "store/column_codec.h"
#include "store/event_streams.h"
#include "util/guarded.h"
#include "util/release_memory.h"

namespace kscope::analysis {

namespace {

using store::kNull;

const char* Style(int64_t event_type) {
  switch (event_type) {
    case store::nvtx::kPushPop:
    case store::nvtx::kNvtxtPushPop: return "PushPop";
    case store::nvtx::kStartEnd:
    case store::nvtx::kNvtxtStartEnd: return "StartEnd";
    default: return "Unknown";
  }
}

void BindStats(sql::Stmt& st, int first, const DurationStats& s) {
  st.Bind(first, s.n)
      .Bind(first + 1, s.total)
      .Bind(first + 2, s.mean)
      .Bind(first + 3, s.median)
      .Bind(first + 4, s.min)
      .Bind(first + 5, s.max)
      .Bind(first + 6, s.stddev);
}

// Durations (end - start) grouped by an id column (a kernel's name).
std::unordered_map<int64_t, std::vector<int64_t>> DurationsById(const std::vector<int64_t>& start,
                                                                const std::vector<int64_t>& end,
                                                                const std::vector<int32_t>& id) {
  // Counted first, so that each group is allocated once, at its size.
  std::unordered_map<int64_t, size_t> counts;
  for (int32_t v : id) ++counts[v];
  std::unordered_map<int64_t, std::vector<int64_t>> by_id;
  for (const auto& [v, n] : counts) by_id[v].reserve(n);
  for (size_t i = 0; i < start.size(); ++i) by_id[id[i]].push_back(end[i] - start[i]);
  return by_id;
}

// The facts plus what the summaries derive from them once: strings and NVTX tags.
struct RunData {
  NsysFacts& e;  // the API durations are consumed by WriteApiSummary
  std::unordered_map<int64_t, std::string> strings;
  std::vector<std::string> tags;  // per NVTX row: 'domain:text'
  int64_t nvtx_max_ts = 0;        // ends of ranges never closed
};

Result<RunData> Prepare(store::Store& store, NsysFacts& e) {
  RunData d{e, {}, {}, OpenRangeEnd(e.nvtx)};
  std::unordered_set<int64_t> distinct;
  for (const auto& [name, durations] : e.api_durations) distinct.insert(name);
  distinct.insert(e.memops.operation.begin(), e.memops.operation.end());
  distinct.insert(e.nvtx.domain.begin(), e.nvtx.domain.end());
  distinct.insert(e.nvtx.text.begin(), e.nvtx.text.end());
  distinct.erase(kNull);
  auto strings = store.Strings(std::vector<int64_t>(distinct.begin(), distinct.end()));
  if (!strings.ok()) return strings.error();
  d.strings = std::move(strings).value();
  const auto& n = e.nvtx;
  for (size_t i = 0; i < n.start.size(); ++i) {
    d.tags.push_back((n.domain[i] == kNull ? std::string() : d.strings[n.domain[i]]) + ":" + d.strings[n.text[i]]);
  }
  return d;
}

int64_t RangeEnd(const RunData& d, size_t i) { return d.e.nvtx.end[i] == kNull ? d.nvtx_max_ts : d.e.nvtx.end[i]; }

Status WriteKernelSummary(sql::Db& db, std::mutex& db_lock, int64_t run_id, const RunData& d) {
  auto by_name = DurationsById(d.e.kernels.start, d.e.kernels.end, d.e.kernels.name);
  const std::lock_guard<std::mutex> hold(db_lock);
  auto st = db.Prepare(
      "INSERT INTO kernel_summary(run_id, name_id, n, total, mean, median, min, max, stddev) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
  if (!st.ok()) return st.error();
  for (auto& [name, durations] : by_name) {
    st->Bind(1, run_id).Bind(2, name);
    BindStats(*st, 3, ComputeStats(durations));
    KSCOPE_RETURN_IF_ERROR(st->Run());
  }
  return Status::Ok();
}

// Each function's durations are freed once summarized: the other summaries need them not.
Status WriteApiSummary(sql::Db& db, std::mutex& db_lock, int64_t run_id, const RunData& d) {
  const std::lock_guard<std::mutex> hold(db_lock);
  auto st = db.Prepare(
      "INSERT INTO api_summary(run_id, name_id, name, n, total, mean, median, min, max, stddev) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
  if (!st.ok()) return st.error();
  for (auto& [name, calls] : d.e.api_durations) {
    std::vector<int64_t> durations = calls.All();
    calls = Durations();
    st->Bind(1, run_id).Bind(2, name).Bind(3, ApiDisplayName(d.strings.at(name)));
    BindStats(*st, 4, ComputeStats(durations));
    KSCOPE_RETURN_IF_ERROR(st->Run());
  }
  return Status::Ok();
}

Status WriteMemopSummary(sql::Db& db, std::mutex& db_lock, int64_t run_id, const RunData& d) {
  std::map<int64_t, std::pair<std::vector<int64_t>, std::vector<int64_t>>> by_op;
  const auto& m = d.e.memops;
  for (size_t i = 0; i < m.start.size(); ++i) {
    auto& [durations, bytes] = by_op[m.operation[i]];
    durations.push_back(m.end[i] - m.start[i]);
    bytes.push_back(m.bytes[i]);
  }
  const std::lock_guard<std::mutex> hold(db_lock);
  auto st = db.Prepare(
      "INSERT INTO memop_summary(run_id, operation, n, total, mean, median, min, max, stddev, bytes_total, "
      "bytes_mean, bytes_median, bytes_min, bytes_max, bytes_stddev) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)");
  if (!st.ok()) return st.error();
  for (auto& [op, v] : by_op) {
    st->Bind(1, run_id).Bind(2, d.strings.at(op));
    BindStats(*st, 3, ComputeStats(v.first));
    const DurationStats b = ComputeStats(v.second);
    st->Bind(10, b.total).Bind(11, b.mean).Bind(12, b.median).Bind(13, b.min).Bind(14, b.max).Bind(15, b.stddev);
    KSCOPE_RETURN_IF_ERROR(st->Run());
  }
  return Status::Ok();
}

Status WriteNvtxSummary(sql::Db& db, std::mutex& db_lock, int64_t run_id, const RunData& d) {
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> by_range;
  const auto& n = d.e.nvtx;
  for (size_t i = 0; i < n.start.size(); ++i) {
    by_range[{d.tags[i], Style(n.event_type[i])}].push_back(RangeEnd(d, i) - n.start[i]);
  }
  const std::lock_guard<std::mutex> hold(db_lock);
  auto st = db.Prepare(
      "INSERT INTO nvtx_summary(run_id, range, style, n, total, mean, median, min, max, stddev) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
  if (!st.ok()) return st.error();
  for (auto& [key, durations] : by_range) {
    st->Bind(1, run_id).Bind(2, key.first).Bind(3, key.second);
    BindStats(*st, 4, ComputeStats(durations));
    KSCOPE_RETURN_IF_ERROR(st->Run());
  }
  return Status::Ok();
}

// The NVTX-to-GPU reports: kernels per range (nvtx_kern_sum) and ranges projected onto
// the GPU (nvtx_gpu_proj_sum).
Status WriteNvtxGpuSummaries(sql::Db& db, std::mutex& db_lock, int64_t run_id, const RunData& d) {
  const auto& k = d.e.kernels;
  const auto& m = d.e.memops;
  const auto& n = d.e.nvtx;
  const size_t n_kernels = k.start.size();
  constexpr uint32_t kMemop = NsysFacts::kMemop;
  auto op_start = [&](uint32_t op) { return (op & kMemop) == 0 ? k.start[op] : m.start[op & ~kMemop]; };
  auto op_end = [&](uint32_t op) { return (op & kMemop) == 0 ? k.end[op] : m.end[op & ~kMemop]; };
  auto op_correlation = [&](uint32_t op) {
    return (op & kMemop) == 0 ? k.correlation[op] : m.correlation[op & ~kMemop];
  };

  // Range names as small integers, so that grouping compares numbers, not strings.
  std::vector<int32_t> tag_index(n.start.size());
  std::vector<std::string> tag_names;
  {
    std::unordered_map<std::string, int32_t> ids;
    for (size_t r = 0; r < n.start.size(); ++r) {
      auto [it, added] = ids.try_emplace(d.tags[r], static_cast<int32_t>(tag_names.size()));
      if (added) tag_names.push_back(d.tags[r]);
      tag_index[r] = it->second;
    }
  }

  // nvtx_kern_sum: one row per (pid, tid, range, style, kernel name); kernels whose launch
  // is unknown or outside every range have no range (and no pid/tid when unknown).
  struct KernKey {
    int64_t gtid;  // kNull: launch unknown
    int32_t tag;   // -1: no range
    int64_t style;
    int64_t kernel;
    bool operator==(const KernKey&) const = default;
  };
  struct KernKeyHash {
    size_t operator()(const KernKey& x) const noexcept {
      uint64_t h = static_cast<uint64_t>(x.gtid) * 0x9E3779B97F4A7C15ULL;
      h ^= static_cast<uint64_t>(x.tag) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
      h ^= static_cast<uint64_t>(x.style) + (h << 6) + (h >> 2);
      h ^= static_cast<uint64_t>(x.kernel) + (h << 6) + (h >> 2);
      return h;
    }
  };
  struct KernGroup {  // durations are those of `kernels`, taken when written
    std::vector<int32_t> ranges;
    std::vector<uint32_t> kernels;
  };
  std::unordered_map<KernKey, KernGroup, KernKeyHash> kern_groups;
  auto add_kernel = [&](uint32_t kernel, int64_t gtid, int32_t r) {
    const KernKey key{gtid, r >= 0 ? tag_index[static_cast<size_t>(r)] : -1,
                      r >= 0 ? n.event_type[static_cast<size_t>(r)] : kNull, k.name[kernel]};
    auto& g = kern_groups[key];
    if (r >= 0) g.ranges.push_back(r);
    g.kernels.push_back(kernel);
  };
  // Per range instance: projected start/end and the correlation ids of its operations.
  struct Projection {
    int64_t start = INT64_MAX;
    int64_t end = INT64_MIN;
    std::vector<int64_t> correlations;
  };
  std::vector<Projection> projections(n.start.size());  // by NVTX row; empty when no GPU work
  std::vector<uint8_t> linked(n_kernels, 0);
  // The launches are consumed as they are grouped (no other summary needs them): the deque
  // frees its blocks as it empties, for the groups to reuse.
  auto& launches = d.e.launches;
  for (; !launches.empty(); launches.pop_front()) {
    const NsysFacts::Launch l = launches.front();
    if ((l.op & kMemop) == 0) {
      linked[l.op] = 1;
      add_kernel(l.op, d.e.threads[l.thread], l.range);
    }
    if (l.range < 0) continue;
    auto& p = projections[static_cast<size_t>(l.range)];
    p.start = std::min(p.start, op_start(l.op));
    p.end = std::max(p.end, op_end(l.op));
    p.correlations.push_back(op_correlation(l.op));
  }
  for (uint32_t i = 0; i < n_kernels; ++i) {
    if (linked[i] == 0) add_kernel(i, kNull, -1);
  }

  std::unique_lock<std::mutex> hold(db_lock);
  auto kst = db.Prepare(
      "INSERT INTO nvtx_kernel_summary(run_id, range, style, pid, tid, range_instances, kernel_name_id, n, total, "
      "mean, median, min, max, stddev) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
  if (!kst.ok()) return kst.error();
  auto distinct = [](auto& v) {
    std::sort(v.begin(), v.end());
    return static_cast<int64_t>(std::unique(v.begin(), v.end()) - v.begin());
  };
  for (auto& [key, g] : kern_groups) {
    kst->Bind(1, run_id);
    if (key.tag >= 0) {
      kst->Bind(2, tag_names[static_cast<size_t>(key.tag)]).Bind(3, Style(key.style));
    } else {
      kst->BindNull(2).BindNull(3);
    }
    if (key.gtid != kNull) {
      kst->Bind(4, (key.gtid >> 24) & 0xFFFFFF).Bind(5, key.gtid & 0xFFFFFF);
    } else {
      kst->BindNull(4).BindNull(5);
    }
    kst->Bind(6, distinct(g.ranges)).Bind(7, key.kernel);
    std::vector<int64_t> durations;  // in launch order, before `kernels` is sorted
    durations.reserve(g.kernels.size());
    for (uint32_t i : g.kernels) durations.push_back(k.end[i] - k.start[i]);
    BindStats(*kst, 8, ComputeStats(durations));
    kst->Bind(8, distinct(g.kernels));  // distinct launches, as nsys counts them
    KSCOPE_RETURN_IF_ERROR(kst->Run());
  }

  hold.unlock();

  // nvtx_gpu_proj_sum: children are the projected ranges whose parent is this range.
  auto projected = [&](size_t row) { return !projections[row].correlations.empty(); };
  std::vector<int64_t> children(n.start.size(), 0);  // by NVTX row: projected children
  for (size_t row = 0; row < n.start.size(); ++row) {
    if (projected(row) && n.parent[row] != kNull) ++children[static_cast<size_t>(n.parent[row])];
  }
  struct ProjGroup {
    std::vector<int64_t> durations;
    int64_t range_total = 0, ops = 0, level_sum = 0, levels = 0, children = 0;
  };
  std::map<std::pair<std::string, std::string>, ProjGroup> proj_groups;
  for (size_t row = 0; row < n.start.size(); ++row) {
    if (!projected(row)) continue;
    auto& p = projections[row];
    auto& g = proj_groups[{d.tags[row], Style(n.event_type[row])}];
    g.durations.push_back(p.end - p.start);
    g.range_total += RangeEnd(d, row) - n.start[row];
    g.ops += distinct(p.correlations);
    if (n.depth[row] != kNull) {
      g.level_sum += n.depth[row];
      ++g.levels;
    }
    g.children += children[row];
  }
  hold.lock();
  auto pst = db.Prepare(
      "INSERT INTO nvtx_projection_summary(run_id, range, style, n, total, mean, median, min, max, stddev, "
      "range_total, gpu_ops, level_mean, children_mean) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
  if (!pst.ok()) return pst.error();
  for (auto& [key, g] : proj_groups) {
    const DurationStats s = ComputeStats(g.durations);
    pst->Bind(1, run_id).Bind(2, key.first).Bind(3, key.second);
    BindStats(*pst, 4, s);
    pst->Bind(11, g.range_total).Bind(12, g.ops);
    if (g.levels > 0) {
      pst->Bind(13, static_cast<double>(g.level_sum) / static_cast<double>(g.levels));
    } else {
      pst->BindNull(13);
    }
    pst->Bind(14, static_cast<double>(g.children) / static_cast<double>(s.n));
    KSCOPE_RETURN_IF_ERROR(pst->Run());
  }
  return Status::Ok();
}

}  // namespace

Status MaterializeNsysSummaries(store::Store& store, int64_t run_id, const NsysEvents& events) {
  auto derived = FactsFromEvents(events);
  if (!derived.ok()) return derived.error();
  return MaterializeNsysSummaries(store, run_id, *derived);
}

Status MaterializeNsysSummaries(store::Store& store, int64_t run_id, NsysFacts& facts) {
  sql::Db& db = store.db();
  for (const char* table : {"kernel_summary", "api_summary", "memop_summary", "nvtx_summary", "nvtx_kernel_summary",
                            "nvtx_projection_summary"}) {
    auto del = db.Prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ?1");
    if (!del.ok()) return del.error();
    KSCOPE_RETURN_IF_ERROR(del->Bind(1, run_id).Run());
  }
  auto data = Prepare(store, facts);
  if (!data.ok()) return data.error();
  // The summaries are independent of one another: each is computed on its own thread, and
  // the database is used under the lock only.
  std::mutex db_lock;
  using Writer = Status (*)(sql::Db&, std::mutex&, int64_t, const RunData&);
  // The API summary goes first, alone: it frees the calls' durations before the others
  // build their groups, which keeps the import's peak memory low.
  KSCOPE_RETURN_IF_ERROR(Guarded([&] { return WriteApiSummary(db, db_lock, run_id, *data); }));
  ReleaseFreedMemory();
  const std::vector<std::vector<Writer>> tasks = {{&WriteNvtxGpuSummaries},
                                                  {&WriteKernelSummary, &WriteMemopSummary, &WriteNvtxSummary}};
  std::vector<Status> results(tasks.size());
  auto run = [&](size_t t) {
    results[t] = Guarded([&]() -> Status {
      for (Writer write : tasks[t]) KSCOPE_RETURN_IF_ERROR(write(db, db_lock, run_id, *data));
      return Status::Ok();
    });
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < tasks.size(); ++t) threads.emplace_back(run, t);
  run(0);
  for (auto& t : threads) t.join();
  for (Status& st : results) {
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

}  // namespace kscope::analysis
