#include "analysis/timeline/rank_selection.h"

#include <string>

#include "store/column_codec.h"

namespace kscope::analysis {

namespace {

// The rows of `keep` (1 = kept) of each column, in order.
void Keep(const std::vector<char>& keep, std::initializer_list<std::vector<int64_t>*> columns) {
  for (std::vector<int64_t>* c : columns) {
    size_t out = 0;
    for (size_t i = 0; i < keep.size(); ++i) {
      if (keep[i] != 0) (*c)[out++] = (*c)[i];
    }
    c->resize(out);
  }
}

std::vector<int64_t> KeptRows(const std::vector<char>& keep) {
  std::vector<int64_t> rows;
  for (size_t i = 0; i < keep.size(); ++i) {
    if (keep[i] != 0) rows.push_back(static_cast<int64_t>(i));
  }
  return rows;
}

// The NVTX ranges of the process; a parent (a row of the same thread, so of the same
// process) renumbered to the kept rows.
void SelectNvtx(NsysEvents::Nvtx& n, int64_t global_pid) {
  std::vector<char> keep(n.start.size());
  std::vector<int64_t> new_row(n.start.size(), store::kNull);
  int64_t kept = 0;
  for (size_t i = 0; i < keep.size(); ++i) {
    keep[i] = InProcess(n.global_tid[i], global_pid) ? 1 : 0;
    if (keep[i] != 0) new_row[i] = kept++;
  }
  for (int64_t& p : n.parent) {
    if (p != store::kNull) p = new_row[static_cast<size_t>(p)];
  }
  Keep(keep,
       {&n.start, &n.end, &n.event_type, &n.domain, &n.text, &n.global_tid, &n.end_global_tid, &n.parent, &n.depth});
}

}  // namespace

RankSelection SelectRank(const NsysEvents& run, const RunRank& rank) {
  RankSelection s{.rank = rank, .events = run, .kernel_rows = {}, .memop_rows = {}};
  NsysEvents& e = s.events;
  std::vector<char> keep(e.kernels.start.size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = e.kernels.global_pid[i] == rank.global_pid ? 1 : 0;
  s.kernel_rows = KeptRows(keep);
  auto& k = e.kernels;
  Keep(keep, {&k.start, &k.end, &k.correlation, &k.global_pid, &k.name});
  keep.assign(e.memops.start.size(), 0);
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = e.memops.global_pid[i] == rank.global_pid ? 1 : 0;
  s.memop_rows = KeptRows(keep);
  auto& m = e.memops;
  Keep(keep, {&m.start, &m.end, &m.correlation, &m.global_pid, &m.operation, &m.bytes});
  keep.assign(e.api.start.size(), 0);
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = InProcess(e.api.global_tid[i], rank.global_pid) ? 1 : 0;
  auto& a = e.api;
  Keep(keep, {&a.start, &a.end, &a.global_tid, &a.correlation, &a.name});
  SelectNvtx(e.nvtx, rank.global_pid);
  return s;
}

Result<RunRank> FindRank(const std::vector<RunRank>& ranks, int64_t rank, int64_t run_id) {
  std::string there;
  for (const RunRank& r : ranks) {
    if (r.rank == rank) return r;
    there += (there.empty() ? "" : ", ") + std::to_string(r.rank);
  }
  const std::string run = "run " + std::to_string(run_id);
  if (ranks.empty())
    return Error{run, "has no rank " + std::to_string(rank) + ": it has no GPU kernels", "choose a run with nsys data"};
  return Error{run, "has no rank " + std::to_string(rank) + "; its ranks are " + there,
               "choose one of them with --rank"};
}

}  // namespace kscope::analysis
