#include "analysis/timeline/ranks.h"

#include <algorithm>
#include <map>

#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

std::vector<RunRank> FindRanks(const std::vector<int64_t>& global_pid, const std::vector<int64_t>& device,
                               const std::optional<EnvRank>& env) {
  std::map<int64_t, std::map<int64_t, int64_t>> kernels;  // global pid -> device -> kernels
  for (size_t i = 0; i < global_pid.size() && i < device.size(); ++i) ++kernels[global_pid[i]][device[i]];
  std::vector<RunRank> ranks;
  for (const auto& [gpid, by_device] : kernels) {
    RunRank r;
    r.rank = static_cast<int64_t>(ranks.size());
    r.global_pid = gpid;
    r.pid = PidOf(gpid);
    r.device = std::max_element(by_device.begin(), by_device.end(), [](const auto& a, const auto& b) {
                 return a.second < b.second;
               })->first;
    for (const auto& [d, n] : by_device) r.kernels += n;
    r.rank_from = kProcessOrder;
    ranks.push_back(std::move(r));
  }
  if (ranks.size() == 1 && env) {
    ranks[0].rank = env->rank;
    ranks[0].rank_from = env->variable;
  }
  return ranks;
}

Status MaterializeRanks(store::Store& store, int64_t run_id, const std::optional<EnvRank>& env) {
  auto cols =
      store::ReadColumns(store.db(), run_id, store::kKernelStream, {store::kernel::kGlobalPid, store::kernel::kDevice});
  if (!cols.ok()) return cols.error();
  const auto ranks = FindRanks((*cols)[0], (*cols)[1], env);
  auto del = store.db().Prepare("DELETE FROM run_rank WHERE run_id = ?1");
  if (!del.ok()) return del.error();
  KSCOPE_RETURN_IF_ERROR(del->Bind(1, run_id).Run());
  auto ins = store.db().Prepare(
      "INSERT INTO run_rank (run_id, rank, global_pid, pid, device, kernels, rank_from) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!ins.ok()) return ins.error();
  for (const RunRank& r : ranks) {
    KSCOPE_RETURN_IF_ERROR(ins->Bind(1, run_id)
                               .Bind(2, r.rank)
                               .Bind(3, r.global_pid)
                               .Bind(4, r.pid)
                               .Bind(5, r.device)
                               .Bind(6, r.kernels)
                               .Bind(7, r.rank_from)
                               .Run());
  }
  return Status::Ok();
}

Result<std::vector<RunRank>> ReadRanks(store::Store& store, int64_t run_id) {
  auto q = store.db().Prepare(
      "SELECT rank, global_pid, pid, device, kernels, rank_from FROM run_rank WHERE run_id = ?1 ORDER BY rank");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  std::vector<RunRank> ranks;
  while (q->Step()) ranks.push_back({q->Int(0), q->Int(1), q->Int(2), q->Int(3), q->Int(4), q->Text(5)});
  KSCOPE_RETURN_IF_ERROR(q->status());
  return ranks;
}

}  // namespace kscope::analysis
