#include "analysis/timeline/kernel_totals.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace kscope::analysis {

namespace {

Result<std::vector<KernelTotal>> StoredTotals(store::Store& store, int64_t run_id) {
  auto q = store.db().Prepare(
      "SELECT k.name_id, s.value, k.n, k.total, k.mean FROM kernel_summary k JOIN string s ON s.id = k.name_id "
      "WHERE k.run_id = ?1 ORDER BY k.total DESC, k.n, s.value");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  std::vector<KernelTotal> rows;
  while (q->Step()) rows.push_back({q->Int(0), q->Text(1), q->Int(2), q->Int(3), q->Double(4)});
  KSCOPE_RETURN_IF_ERROR(q->status());
  return rows;
}

Result<std::vector<KernelTotal>> RankTotals(store::Store& store, const RankSelection& rank) {
  const auto& k = rank.events.kernels;
  std::map<int64_t, std::pair<int64_t, int64_t>> by_name;  // name id -> (launches, ns)
  for (size_t i = 0; i < k.start.size(); ++i) {
    auto& t = by_name[k.name[i]];
    ++t.first;
    t.second += k.end[i] - k.start[i];
  }
  std::vector<int64_t> ids;
  for (const auto& [id, t] : by_name) ids.push_back(id);
  auto names = store.Strings(ids);
  if (!names.ok()) return names.error();
  std::vector<KernelTotal> rows;
  for (const auto& [id, t] : by_name) {
    rows.push_back(
        {id, names->at(id), t.first, t.second, static_cast<double>(t.second) / static_cast<double>(t.first)});
  }
  std::sort(rows.begin(), rows.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return std::tie(b.total, a.n, a.name) < std::tie(a.total, b.n, b.name);
  });
  return rows;
}

}  // namespace

Result<std::vector<KernelTotal>> KernelTotals(store::Store& store, int64_t run_id, const RankSelection* rank) {
  return rank != nullptr ? RankTotals(store, *rank) : StoredTotals(store, run_id);
}

Result<RankSelection> LoadRank(store::Store& store, int64_t run_id, int64_t rank) {
  auto ranks = ReadRanks(store, run_id);
  if (!ranks.ok()) return ranks.error();
  auto found = FindRank(*ranks, rank, run_id);
  if (!found.ok()) return found.error();
  auto events = LoadNsysEvents(store, run_id);
  if (!events.ok()) return events.error();
  return SelectRank(*events, *found);
}

}  // namespace kscope::analysis
