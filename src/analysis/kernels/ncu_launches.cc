#include "analysis/kernels/ncu_launches.h"

#include "tools/metric_catalog.h"

namespace kscope::analysis {

std::optional<double> NcuLaunch::Number(std::string_view metric) const {
  if (auto it = metrics.find(std::string(metric)); it != metrics.end()) return it->second.number;
  for (std::string_view alt : tools::AlternateNames(metric)) {
    if (auto it = metrics.find(std::string(alt)); it != metrics.end()) return it->second.number;
  }
  return std::nullopt;
}

bool NcuLaunch::Has(std::string_view metric) const {
  if (metrics.contains(std::string(metric))) return true;
  for (std::string_view alt : tools::AlternateNames(metric)) {
    if (metrics.contains(std::string(alt))) return true;
  }
  return false;
}

Result<std::vector<NcuLaunch>> LoadNcuLaunches(store::Store& store, int64_t run_id) {
  auto& db = store.db();
  auto q = db.Prepare(
      "SELECT l.id, l.ncu_id, l.pid, l.process, l.host, s.value, l.context, l.stream, l.device, l.cc, l.grid_x, "
      "l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z, l.nvtx, l.kernel_index, l.kernel_run "
      "FROM ncu_launch l JOIN string s ON s.id = l.name_id WHERE l.run_id = ?1 ORDER BY l.id");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  std::vector<NcuLaunch> out;
  while (q->Step()) {
    NcuLaunch l;
    l.id = q->Int(0);
    auto& k = l.key;
    k.ncu_id = q->Int(1);
    k.pid = q->OptInt(2);
    k.process = q->OptText(3).value_or("");
    k.host = q->OptText(4).value_or("");
    k.name = q->Text(5);
    k.context = q->OptInt(6);
    k.stream = q->OptInt(7);
    k.device = q->OptInt(8);
    k.cc = q->OptText(9).value_or("");
    k.grid = {q->Int(10), q->Int(11), q->Int(12)};
    k.block = {q->Int(13), q->Int(14), q->Int(15)};
    k.nvtx = q->OptText(16).value_or("");
    l.kernel_index = q->OptInt(17);
    l.kernel_run = q->OptInt(18);
    out.push_back(std::move(l));
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  if (out.empty()) return out;
  auto m = db.Prepare(
      "SELECT m.launch_id, s.value, m.value, m.text, m.unit FROM ncu_metric m JOIN string s ON s.id = m.metric_id "
      "WHERE m.run_id = ?1");
  if (!m.ok()) return m.error();
  m->Bind(1, run_id);
  while (m->Step()) {
    const auto launch = static_cast<size_t>(m->Int(0));
    if (launch >= out.size() || out[launch].id != m->Int(0)) continue;  // ids are 0..n-1 by construction
    NcuValue v;
    if (!m->IsNull(2)) v.number = m->Double(2);
    v.text = m->OptText(3).value_or("");
    v.unit = m->Text(4);
    out[launch].metrics.emplace(m->Text(1), std::move(v));
  }
  KSCOPE_RETURN_IF_ERROR(m->status());
  return out;
}

}  // namespace kscope::analysis
