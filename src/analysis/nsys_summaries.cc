#include "analysis/nsys_summaries.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "analysis/duration_stats.h"
#include "analysis/launch_links.h"
#include "store/column_codec.h"
#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {

using store::kNull;

constexpr int64_t kNvtxPushPop = 59, kNvtxStartEnd = 60, kNvtxtPushPop = 70, kNvtxtStartEnd = 71;

const char* Style(int64_t event_type) {
  switch (event_type) {
    case kNvtxPushPop:
    case kNvtxtPushPop: return "PushPop";
    case kNvtxStartEnd:
    case kNvtxtStartEnd: return "StartEnd";
    default: return "Unknown";
  }
}

// nsys's cuda_api_sum drops a trailing version suffix such as '_v7000' (exactly 6 characters
// starting with '_v'), so cudaLaunchKernel_v7000 reads cudaLaunchKernel.
std::string ApiDisplayName(const std::string& raw) {
  if (raw.size() >= 6 && raw.compare(raw.size() - 6, 2, "_v") == 0) return raw.substr(0, raw.size() - 6);
  return raw;
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

struct RunData {
  store::Columns kernels;  // start, end, correlation, global_pid, name
  store::Columns memops;   // start, end, correlation, global_pid, operation, bytes
  store::Columns api;      // start, end, global_tid, correlation, name
  store::Columns nvtx;     // start, end, event_type, domain, text, global_tid, end_global_tid, parent, depth
  std::unordered_map<int64_t, std::string> strings;
  std::vector<std::string> tags;  // per NVTX row: 'domain:text'
  int64_t nvtx_max_ts = 0;        // ends of ranges never closed
};

Result<RunData> Load(store::Store& store, int64_t run_id) {
  RunData d;
  sql::Db& db = store.db();
  namespace k = store::kernel;
  namespace m = store::memop;
  namespace a = store::api;
  namespace n = store::nvtx;
  auto kc = store::ReadColumns(db, run_id, store::kKernelStream,
                               {k::kStart, k::kEnd, k::kCorrelation, k::kGlobalPid, k::kName});
  if (!kc.ok()) return kc.error();
  d.kernels = std::move(kc).value();
  auto mc = store::ReadColumns(db, run_id, store::kMemopStream,
                               {m::kStart, m::kEnd, m::kCorrelation, m::kGlobalPid, m::kOperation, m::kBytes});
  if (!mc.ok()) return mc.error();
  d.memops = std::move(mc).value();
  auto ac =
      store::ReadColumns(db, run_id, store::kApiStream, {a::kStart, a::kEnd, a::kGlobalTid, a::kCorrelation, a::kName});
  if (!ac.ok()) return ac.error();
  d.api = std::move(ac).value();
  auto nc = store::ReadColumns(db, run_id, store::kNvtxStream,
                               {n::kStart, n::kEnd, n::kEventType, n::kDomain, n::kText, n::kGlobalTid,
                                n::kEndGlobalTid, n::kParent, n::kDepth});
  if (!nc.ok()) return nc.error();
  d.nvtx = std::move(nc).value();

  std::vector<int64_t> ids;
  std::set<int64_t> distinct;
  for (int64_t id : d.api[4]) distinct.insert(id);
  for (int64_t id : d.memops[4]) distinct.insert(id);
  for (int64_t id : d.nvtx[3]) distinct.insert(id);
  for (int64_t id : d.nvtx[4]) distinct.insert(id);
  distinct.erase(kNull);
  ids.assign(distinct.begin(), distinct.end());
  auto strings = store.Strings(ids);
  if (!strings.ok()) return strings.error();
  d.strings = std::move(strings).value();

  for (size_t i = 0; i < d.nvtx[0].size(); ++i) {
    d.nvtx_max_ts = std::max({d.nvtx_max_ts, d.nvtx[0][i], d.nvtx[1][i]});
    const int64_t domain = d.nvtx[3][i];
    d.tags.push_back((domain == kNull ? std::string() : d.strings[domain]) + ":" + d.strings[d.nvtx[4][i]]);
  }
  return d;
}

int64_t RangeEnd(const RunData& d, size_t i) { return d.nvtx[1][i] == kNull ? d.nvtx_max_ts : d.nvtx[1][i]; }

Status WriteKernelSummary(sql::Db& db, int64_t run_id, const RunData& d) {
  std::unordered_map<int64_t, std::vector<int64_t>> by_name;
  for (size_t i = 0; i < d.kernels[0].size(); ++i)
    by_name[d.kernels[4][i]].push_back(d.kernels[1][i] - d.kernels[0][i]);
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

Status WriteApiSummary(sql::Db& db, int64_t run_id, RunData& d) {
  std::unordered_map<int64_t, std::vector<int64_t>> by_name;
  for (size_t i = 0; i < d.api[0].size(); ++i) by_name[d.api[4][i]].push_back(d.api[1][i] - d.api[0][i]);
  auto st = db.Prepare(
      "INSERT INTO api_summary(run_id, name_id, name, n, total, mean, median, min, max, stddev) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
  if (!st.ok()) return st.error();
  for (auto& [name, durations] : by_name) {
    st->Bind(1, run_id).Bind(2, name).Bind(3, ApiDisplayName(d.strings[name]));
    BindStats(*st, 4, ComputeStats(durations));
    KSCOPE_RETURN_IF_ERROR(st->Run());
  }
  return Status::Ok();
}

Status WriteMemopSummary(sql::Db& db, int64_t run_id, RunData& d) {
  std::map<int64_t, std::pair<std::vector<int64_t>, std::vector<int64_t>>> by_op;
  for (size_t i = 0; i < d.memops[0].size(); ++i) {
    auto& [durations, bytes] = by_op[d.memops[4][i]];
    durations.push_back(d.memops[1][i] - d.memops[0][i]);
    bytes.push_back(d.memops[5][i]);
  }
  auto st = db.Prepare(
      "INSERT INTO memop_summary(run_id, operation, n, total, mean, median, min, max, stddev, bytes_total, "
      "bytes_mean, bytes_median, bytes_min, bytes_max, bytes_stddev) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)");
  if (!st.ok()) return st.error();
  for (auto& [op, v] : by_op) {
    st->Bind(1, run_id).Bind(2, d.strings[op]);
    BindStats(*st, 3, ComputeStats(v.first));
    const DurationStats b = ComputeStats(v.second);
    st->Bind(10, b.total).Bind(11, b.mean).Bind(12, b.median).Bind(13, b.min).Bind(14, b.max).Bind(15, b.stddev);
    KSCOPE_RETURN_IF_ERROR(st->Run());
  }
  return Status::Ok();
}

Status WriteNvtxSummary(sql::Db& db, int64_t run_id, const RunData& d) {
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> by_range;
  for (size_t i = 0; i < d.nvtx[0].size(); ++i) {
    by_range[{d.tags[i], Style(d.nvtx[2][i])}].push_back(RangeEnd(d, i) - d.nvtx[0][i]);
  }
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
Status WriteNvtxGpuSummaries(sql::Db& db, int64_t run_id, const RunData& d) {
  const size_t n_kernels = d.kernels[0].size();
  const size_t n_ops = n_kernels + d.memops[0].size();
  OpKeys ops;
  ops.correlation.reserve(n_ops);
  ops.global_pid.reserve(n_ops);
  for (const auto* cols : {&d.kernels, &d.memops}) {
    ops.correlation.insert(ops.correlation.end(), (*cols)[2].begin(), (*cols)[2].end());
    ops.global_pid.insert(ops.global_pid.end(), (*cols)[3].begin(), (*cols)[3].end());
  }
  auto op_start = [&](size_t i) { return i < n_kernels ? d.kernels[0][i] : d.memops[0][i - n_kernels]; };
  auto op_end = [&](size_t i) { return i < n_kernels ? d.kernels[1][i] : d.memops[1][i - n_kernels]; };
  ApiCalls api{d.api[0], d.api[1], d.api[2], d.api[3]};
  Ranges ranges;
  std::vector<size_t> range_row;  // Ranges index -> NVTX row
  for (size_t i = 0; i < d.nvtx[0].size(); ++i) {
    if (d.nvtx[6][i] != kNull) continue;  // ends on another thread: left out, as nsys does
    ranges.start.push_back(d.nvtx[0][i]);
    ranges.end.push_back(RangeEnd(d, i));
    ranges.global_tid.push_back(d.nvtx[5][i]);
    range_row.push_back(i);
  }
  const std::vector<LaunchLink> links = LinkLaunches(ops, api, ranges);

  // nvtx_kern_sum: one row per (pid, tid, range, style, kernel name); kernels whose launch
  // is unknown or outside every range have NULL range (and NULL pid/tid when unknown).
  using KernKey = std::tuple<std::optional<int64_t>, std::optional<int64_t>, std::optional<std::string>,
                             std::optional<std::string>, int64_t>;
  struct KernGroup {
    std::vector<int64_t> durations;
    std::set<int32_t> ranges;
    std::set<uint32_t> kernels;
  };
  std::map<KernKey, KernGroup> kern_groups;
  std::vector<uint8_t> linked(n_kernels, 0);
  auto add_kernel = [&](uint32_t k, std::optional<int64_t> gtid, int32_t r) {
    std::optional<int64_t> pid, tid;
    if (gtid) {
      pid = (*gtid >> 24) & 0xFFFFFF;
      tid = *gtid & 0xFFFFFF;
    }
    std::optional<std::string> name, style;
    if (r >= 0) {
      name = d.tags[range_row[r]];
      style = Style(d.nvtx[2][range_row[r]]);
    }
    auto& g = kern_groups[KernKey{pid, tid, name, style, d.kernels[4][k]}];
    g.durations.push_back(d.kernels[1][k] - d.kernels[0][k]);
    if (r >= 0) g.ranges.insert(r);
    g.kernels.insert(k);
  };
  // Per range instance: projected start/end and the correlation ids of its operations.
  struct Projection {
    int64_t start = INT64_MAX;
    int64_t end = INT64_MIN;
    std::vector<int64_t> correlations;
  };
  std::unordered_map<int32_t, Projection> projections;
  for (const LaunchLink& l : links) {
    if (l.op < n_kernels) {
      linked[l.op] = 1;
      add_kernel(l.op, d.api[2][l.api], l.range);
    }
    if (l.range < 0) continue;
    auto& p = projections[l.range];
    p.start = std::min(p.start, op_start(l.op));
    p.end = std::max(p.end, op_end(l.op));
    p.correlations.push_back(d.api[3][l.api]);
  }
  for (uint32_t k = 0; k < n_kernels; ++k) {
    if (linked[k] == 0) add_kernel(k, std::nullopt, -1);
  }

  auto kst = db.Prepare(
      "INSERT INTO nvtx_kernel_summary(run_id, range, style, pid, tid, range_instances, kernel_name_id, n, total, "
      "mean, median, min, max, stddev) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
  if (!kst.ok()) return kst.error();
  for (auto& [key, g] : kern_groups) {
    const auto& [pid, tid, name, style, kernel] = key;
    DurationStats s = ComputeStats(g.durations);
    kst->Bind(1, run_id).Bind(2, name).Bind(3, style).Bind(4, pid).Bind(5, tid);
    kst->Bind(6, static_cast<int64_t>(g.ranges.size())).Bind(7, kernel);
    BindStats(*kst, 8, s);
    kst->Bind(8, static_cast<int64_t>(g.kernels.size()));  // distinct launches, as nsys counts them
    KSCOPE_RETURN_IF_ERROR(kst->Run());
  }

  // nvtx_gpu_proj_sum: children are the projected ranges whose parent is this range.
  std::unordered_map<int64_t, int64_t> children;  // NVTX row -> projected children
  for (const auto& [r, p] : projections) {
    const int64_t parent = d.nvtx[7][range_row[r]];
    if (parent != kNull) ++children[parent];
  }
  struct ProjGroup {
    std::vector<int64_t> durations;
    int64_t range_total = 0, ops = 0, level_sum = 0, levels = 0, children = 0;
  };
  std::map<std::pair<std::string, std::string>, ProjGroup> proj_groups;
  for (auto& [r, p] : projections) {
    const size_t row = range_row[r];
    auto& g = proj_groups[{d.tags[row], Style(d.nvtx[2][row])}];
    g.durations.push_back(p.end - p.start);
    g.range_total += RangeEnd(d, row) - d.nvtx[0][row];
    std::sort(p.correlations.begin(), p.correlations.end());
    g.ops += std::unique(p.correlations.begin(), p.correlations.end()) - p.correlations.begin();
    if (d.nvtx[8][row] != kNull) {
      g.level_sum += d.nvtx[8][row];
      ++g.levels;
    }
    if (auto c = children.find(static_cast<int64_t>(row)); c != children.end()) g.children += c->second;
  }
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

Status MaterializeNsysSummaries(store::Store& store, int64_t run_id) {
  sql::Db& db = store.db();
  for (const char* table : {"kernel_summary", "api_summary", "memop_summary", "nvtx_summary", "nvtx_kernel_summary",
                            "nvtx_projection_summary"}) {
    auto del = db.Prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ?1");
    if (!del.ok()) return del.error();
    KSCOPE_RETURN_IF_ERROR(del->Bind(1, run_id).Run());
  }
  auto data = Load(store, run_id);
  if (!data.ok()) return data.error();
  KSCOPE_RETURN_IF_ERROR(WriteKernelSummary(db, run_id, *data));
  KSCOPE_RETURN_IF_ERROR(WriteApiSummary(db, run_id, *data));
  KSCOPE_RETURN_IF_ERROR(WriteMemopSummary(db, run_id, *data));
  KSCOPE_RETURN_IF_ERROR(WriteNvtxSummary(db, run_id, *data));
  return WriteNvtxGpuSummaries(db, run_id, *data);
}

}  // namespace kscope::analysis
