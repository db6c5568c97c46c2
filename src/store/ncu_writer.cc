#include "store/ncu_writer.h"

#include <string>

namespace kscope::store {

namespace {

// The metric insert for `rows` rows: one VALUES tuple each, then the upsert.
std::string MetricInsert(size_t rows) {
  std::string sql = "INSERT INTO ncu_metric(run_id, launch_id, metric_id, value, text, unit, precise) VALUES ";
  for (size_t r = 0; r < rows; ++r) {
    const size_t b = r * 7;
    sql += (r == 0 ? "" : ",") + std::string("(?") + std::to_string(b + 1);
    for (size_t c = 2; c <= 7; ++c) sql += ",?" + std::to_string(b + c);
    sql += ")";
  }
  return sql +
         " ON CONFLICT(run_id, launch_id, metric_id) DO UPDATE SET value = excluded.value, text = excluded.text, "
         "unit = excluded.unit, precise = excluded.precise WHERE excluded.precise >= ncu_metric.precise";
}

}  // namespace

Result<NcuWriter> NcuWriter::Open(Store& store, int64_t run_id, int64_t source_id) {
  NcuWriter w(store, run_id, source_id);
  auto& db = store.db();
  auto existing = db.Prepare(
      "SELECT id, ncu_id, pid, name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z FROM ncu_launch "
      "WHERE run_id = ?1");
  if (!existing.ok()) return existing.error();
  existing->Bind(1, run_id);
  while (existing->Step()) {
    const int64_t id = existing->Int(0);
    w.launches_[{existing->Int(1),
                 existing->OptInt(2),
                 existing->Int(3),
                 {existing->Int(4), existing->Int(5), existing->Int(6)},
                 {existing->Int(7), existing->Int(8), existing->Int(9)}}] = id;
    w.next_id_ = std::max(w.next_id_, id + 1);
  }
  KSCOPE_RETURN_IF_ERROR(existing->status());
  w.empty_at_open_ = w.launches_.empty();
  auto launch = db.Prepare(
      "INSERT INTO ncu_launch(run_id, id, source_id, ncu_id, pid, process, host, name_id, context, stream, device, "
      "cc, grid_x, grid_y, grid_z, block_x, block_y, block_z, nvtx) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)");
  if (!launch.ok()) return launch.error();
  auto metric = db.Prepare(MetricInsert(1));
  if (!metric.ok()) return metric.error();
  auto metrics = db.Prepare(MetricInsert(kRowsPerInsert));
  if (!metrics.ok()) return metrics.error();
  auto rule = db.Prepare(
      "INSERT INTO ncu_rule(run_id, launch_id, section, rule, type, description, speedup_type, speedup) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
  if (!rule.ok()) return rule.error();
  w.insert_launch_ = std::move(launch).value();
  w.insert_metric_ = std::move(metric).value();
  w.insert_metrics_ = std::move(metrics).value();
  w.pending_.reserve(kRowsPerInsert);
  w.insert_rule_ = std::move(rule).value();
  return w;
}

Result<int64_t> NcuWriter::Launch(const NcuLaunchKey& key) {
  auto name_id = store_->InternString(key.name);
  if (!name_id.ok()) return name_id.error();
  const Identity identity{key.ncu_id, key.pid, *name_id, key.grid, key.block};
  if (auto it = launches_.find(identity); it != launches_.end()) return it->second;
  const int64_t id = next_id_++;
  auto& s = insert_launch_;
  s.Bind(1, run_id_).Bind(2, id).Bind(3, source_id_).Bind(4, key.ncu_id).Bind(5, key.pid);
  s.Bind(6, key.process).Bind(7, key.host).Bind(8, *name_id).Bind(9, key.context).Bind(10, key.stream);
  s.Bind(11, key.device).Bind(12, key.cc);
  for (int i = 0; i < 3; ++i) {
    s.Bind(13 + i, key.grid[static_cast<size_t>(i)]).Bind(16 + i, key.block[static_cast<size_t>(i)]);
  }
  s.Bind(19, key.nvtx);
  KSCOPE_RETURN_IF_ERROR(s.Run());
  launches_[identity] = id;
  return id;
}

Status NcuWriter::Metric(int64_t launch_id, std::string_view metric, std::optional<double> value, std::string_view text,
                         std::string_view unit, bool precise) {
  auto metric_id = store_->InternString(metric);
  if (!metric_id.ok()) return metric_id.error();
  return Metric(launch_id, *metric_id, value, text, unit, precise);
}

Status NcuWriter::Metric(int64_t launch_id, int64_t metric_id, std::optional<double> value, std::string_view text,
                         std::string_view unit, bool precise) {
  pending_.push_back(
      {launch_id, metric_id, value, value ? std::string() : std::string(text), std::string(unit), precise});
  if (pending_.size() < kRowsPerInsert) return Status::Ok();
  KSCOPE_RETURN_IF_ERROR(Write(insert_metrics_, 0, kRowsPerInsert));
  pending_.clear();
  return Status::Ok();
}

Status NcuWriter::Finish() {
  for (size_t i = 0; i < pending_.size(); ++i) KSCOPE_RETURN_IF_ERROR(Write(insert_metric_, i, 1));
  pending_.clear();
  return Status::Ok();
}

Status NcuWriter::Write(sql::Stmt& insert, size_t first, size_t count) {
  for (size_t r = 0; r < count; ++r) {
    const PendingMetric& m = pending_[first + r];
    const int b = static_cast<int>(r * 7);
    insert.Bind(b + 1, run_id_).Bind(b + 2, m.launch_id).Bind(b + 3, m.metric_id).Bind(b + 4, m.value);
    if (m.value) {
      insert.BindNull(b + 5);
    } else {
      insert.Bind(b + 5, m.text);
    }
    insert.Bind(b + 6, m.unit).Bind(b + 7, m.precise ? 1 : 0);
  }
  return insert.Run();
}

Status NcuWriter::Rule(int64_t launch_id, const NcuRuleRow& rule) {
  auto& s = insert_rule_;
  s.Bind(1, run_id_).Bind(2, launch_id).Bind(3, rule.section).Bind(4, rule.rule).Bind(5, rule.type);
  s.Bind(6, rule.description);
  if (rule.speedup_type.empty()) {
    s.BindNull(7);
  } else {
    s.Bind(7, rule.speedup_type);
  }
  return s.Bind(8, rule.speedup).Run();
}

}  // namespace kscope::store
