#include "import/nsys/gpu_metrics_reader.h"

#include <array>
#include <map>
#include <set>
#include <utility>

#include "store/event_streams.h"

namespace kscope::import::nsys {

namespace {

bool Kept(const std::string& name) {
  for (std::string_view k : KeptGpuMetrics()) {
    if (name.starts_with(k)) return true;
  }
  return false;
}

// (typeId, metricId) -> string id of the metric's name, for the kept metrics.
Result<std::map<std::pair<int64_t, int64_t>, int64_t>> MetricNames(FileContext& ctx, sql::Db& db) {
  std::map<std::pair<int64_t, int64_t>, int64_t> out;
  auto q = ctx.Select(db, "TARGET_INFO_GPU_METRICS", {"typeId", "metricId", "metricName"});
  if (!q.ok()) return q.error();
  StringMapper strings(ctx.target.store, ctx.store_lock, ctx.strings);
  while (q->Step()) {
    const std::string name = q->Text(3);
    if (!Kept(name)) continue;
    auto id = strings.Intern(name);
    if (!id.ok()) return id.error();
    out[{q->Int(1), q->Int(2)}] = *id;
  }
  if (!q->status().ok()) return ctx.ReadError(db, "TARGET_INFO_GPU_METRICS");
  return out;
}

}  // namespace

const std::vector<std::string_view>& KeptGpuMetrics() {
  static const std::vector<std::string_view> kKept = {"GR Active",     "SMs Active",          "SM Issue",
                                                      "Tensor Active", "DRAM Read Bandwidth", "DRAM Write Bandwidth"};
  return kKept;
}

Status ReadGpuMetrics(FileContext& ctx, sql::Db& db) {
  if (!ctx.schema.HasTable("GPU_METRICS") || !ctx.schema.HasTable("TARGET_INFO_GPU_METRICS")) return Status::Ok();
  auto names = MetricNames(ctx, db);
  if (!names.ok()) return names.error();
  if (names->empty()) return Status::Ok();
  std::set<int64_t> ids;
  std::string in;
  for (const auto& [key, name] : *names) {
    if (ids.insert(key.second).second) in += (in.empty() ? "" : ",") + std::to_string(key.second);
  }
  auto q =
      ctx.Select(db, "GPU_METRICS", {"timestamp", "typeId", "metricId", "value"}, "WHERE metricId IN (" + in + ")");
  if (!q.ok()) return q.error();
  store::EventWriter out = ctx.Writer(store::kGpuMetricStream);
  std::array<int64_t, store::gpu_metric::kCount> row{};
  namespace g = store::gpu_metric;
  while (q->Step()) {
    if (q->IsNull(1) || q->IsNull(4)) {
      KSCOPE_RETURN_IF_ERROR(ctx.Problem("GPU_METRICS", q->Int(0), "timestamp or value is NULL", ""));
      continue;
    }
    auto it = names->find({q->Int(2), q->Int(3)});
    if (it == names->end()) continue;  // a metric of the same id on another GPU type, not kept
    row[g::kTime] = q->Int(1);
    row[g::kSource] = q->Int(2);
    row[g::kMetric] = it->second;
    row[g::kValue] = q->Int(4);
    KSCOPE_RETURN_IF_ERROR(out.Append(row));
  }
  if (!q->status().ok()) return ctx.ReadError(db, "GPU_METRICS");
  return ctx.Finish(out);
}

}  // namespace kscope::import::nsys
