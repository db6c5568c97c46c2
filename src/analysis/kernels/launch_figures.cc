#include "analysis/kernels/launch_figures.h"

#include "analysis/kernels/launch_shapes.h"
#include "analysis/kernels/roofline.h"

namespace kscope::analysis {

LaunchFigures FiguresOf(const NcuLaunch& l) {
  const Evidence e = GatherEvidence(l);
  LaunchFigures f;
  f.class_figures = ClassFiguresOf(e);
  f.l1_hit_pct = e.l1_hit_pct;
  f.achieved_occupancy_pct = e.achieved_occupancy_pct;
  f.theoretical_occupancy_pct = e.theoretical_occupancy_pct;
  f.occupancy_limiter = e.occupancy_limiter;
  if (!e.top_stalls.empty()) f.top_stall = e.top_stalls.front().reason;
  f.registers = l.Number("launch__registers_per_thread");
  f.shared_bytes = l.Number("launch__shared_mem_per_block");
  f.tensor_pipe_pct = l.Number("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active");
  if (!f.tensor_pipe_pct)
    f.tensor_pipe_pct = l.Number("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed");
  const Roofline roofline = ComputeRoofline(l);
  if (const RooflinePoint* p = MainPoint(roofline)) {
    f.roof_precision = std::string(p->precision);
    f.roof_pct = p->PercentOfRoof();
    f.roof_memory_bound = p->MemoryBound();
  }
  return f;
}

namespace {

// The columns of ncu_launch_figures after run_id and launch_id, in the order both statements use.
constexpr const char* kColumns =
    "duration_ns, sm_pct, memory_pct, dram_pct, l1_hit_pct, l2_hit_pct, achieved_occupancy_pct, "
    "theoretical_occupancy_pct, occupancy_limiter, top_stall, waves, registers, shared_bytes, tensor_pipe_pct, "
    "roof_precision, roof_pct, roof_memory_bound, shape";

std::optional<std::string_view> NonEmpty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string_view>(s);
}

// The column's text, or "" for NULL, into a string the reader reuses row after row.
void AssignText(const sql::Stmt& q, int col, std::string& out) {
  const unsigned char* text = sqlite3_column_text(q.raw(), col);
  if (text == nullptr) {
    out.clear();
  } else {
    out.assign(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(q.raw(), col)));
  }
}

std::optional<double> OptDouble(const sql::Stmt& q, int col) {
  return q.IsNull(col) ? std::nullopt : std::optional<double>(q.Double(col));
}

}  // namespace

Status MaterializeLaunchFigures(store::Store& store, int64_t run_id) {
  RunTimelines timelines(store);
  return MaterializeLaunchFigures(store, run_id, timelines);
}

Status MaterializeLaunchFigures(store::Store& store, int64_t run_id, RunTimelines& timelines,
                                const DerivedLaunchFigures* derived) {
  auto& db = store.db();
  auto del = db.Prepare("DELETE FROM ncu_launch_figures WHERE run_id = ?1");
  if (!del.ok()) return del.error();
  KSCOPE_RETURN_IF_ERROR(del->Bind(1, run_id).Run());
  DerivedLaunchFigures from_store;
  if (derived == nullptr) {
    auto launches = LoadNcuLaunches(store, run_id);
    if (!launches.ok()) return launches.error();
    for (const NcuLaunch& l : *launches) from_store.emplace_back(l.id, FiguresOf(l));
    derived = &from_store;
  }
  auto shapes = LaunchShapes(store, run_id, timelines);
  if (!shapes.ok()) return shapes.error();
  auto ins = db.Prepare(std::string("INSERT INTO ncu_launch_figures (run_id, launch_id, ") + kColumns +
                        ") VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)");
  if (!ins.ok()) return ins.error();
  for (const auto& [id, f] : *derived) {
    const ClassFigures& c = f.class_figures;
    auto& s = *ins;
    s.Bind(1, run_id).Bind(2, id).Bind(3, c.duration_ns).Bind(4, c.sm_pct).Bind(5, c.memory_pct);
    s.Bind(6, c.dram_pct).Bind(7, f.l1_hit_pct).Bind(8, c.l2_hit_pct).Bind(9, f.achieved_occupancy_pct);
    s.Bind(10, f.theoretical_occupancy_pct).Bind(11, NonEmpty(f.occupancy_limiter)).Bind(12, NonEmpty(f.top_stall));
    s.Bind(13, c.waves).Bind(14, f.registers).Bind(15, f.shared_bytes).Bind(16, f.tensor_pipe_pct);
    s.Bind(17, NonEmpty(f.roof_precision)).Bind(18, f.roof_pct);
    if (f.roof_memory_bound) {
      s.Bind(19, int64_t{*f.roof_memory_bound ? 1 : 0});
    } else {
      s.BindNull(19);
    }
    if (auto shape = shapes->find(id); shape != shapes->end()) {
      s.Bind(20, std::string_view(shape->second));
    } else {
      s.BindNull(20);
    }
    KSCOPE_RETURN_IF_ERROR(s.Run());
  }
  return Status::Ok();
}

Result<StoredLaunchReader> StoredLaunchReader::Open(store::Store& store) {
  auto q = store.db().Prepare(
      std::string("SELECT l.id, l.name_id, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z, ") +
      kColumns +
      ", l.device FROM ncu_launch l JOIN ncu_launch_figures f ON f.run_id = l.run_id AND f.launch_id = l.id "
      "WHERE l.run_id = ?1 ORDER BY l.id");
  if (!q.ok()) return q.error();
  return StoredLaunchReader(std::move(q).value());
}

Status StoredLaunchReader::ForEach(int64_t run_id, const std::function<void(const StoredLaunch&)>& fn) {
  q_.Reset();
  q_.Bind(1, run_id);
  StoredLaunch l;
  while (q_.Step()) {
    l.launch_id = q_.Int(0);
    l.name_id = q_.Int(1);
    l.grid = {q_.Int(2), q_.Int(3), q_.Int(4)};
    l.block = {q_.Int(5), q_.Int(6), q_.Int(7)};
    LaunchFigures& f = l.figures;
    ClassFigures& c = f.class_figures;
    c.duration_ns = OptDouble(q_, 8);
    c.sm_pct = OptDouble(q_, 9);
    c.memory_pct = OptDouble(q_, 10);
    c.dram_pct = OptDouble(q_, 11);
    f.l1_hit_pct = OptDouble(q_, 12);
    c.l2_hit_pct = OptDouble(q_, 13);
    f.achieved_occupancy_pct = OptDouble(q_, 14);
    f.theoretical_occupancy_pct = OptDouble(q_, 15);
    AssignText(q_, 16, f.occupancy_limiter);
    AssignText(q_, 17, f.top_stall);
    c.waves = OptDouble(q_, 18);
    f.registers = OptDouble(q_, 19);
    f.shared_bytes = OptDouble(q_, 20);
    f.tensor_pipe_pct = OptDouble(q_, 21);
    AssignText(q_, 22, f.roof_precision);
    f.roof_pct = OptDouble(q_, 23);
    f.roof_memory_bound = q_.IsNull(24) ? std::nullopt : std::optional<bool>(q_.Int(24) != 0);
    AssignText(q_, 25, l.shape);
    l.device = q_.IsNull(26) ? std::nullopt : std::optional<int64_t>(q_.Int(26));
    fn(l);
  }
  return q_.status();
}

}  // namespace kscope::analysis
