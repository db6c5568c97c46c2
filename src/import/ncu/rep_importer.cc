#include "import/ncu/rep_importer.h"

#include <fmt/format.h>

#include <cmath>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/kernels/launch_figures_builder.h"
#include "import/ncu/rep_reader.h"
#include "import/ncu/rep_units.h"
#include "import/ncu/units.h"
#include "store/ncu_writer.h"

namespace kscope::import::ncu {

namespace {

std::optional<int64_t> IntMetric(const RepLaunch& l, std::string_view name) {
  const RepMetric* m = l.Find(name);
  if (m == nullptr || !m->value.numeric()) return std::nullopt;
  const double v = m->value.number();
  if (!(v >= -9e18 && v <= 9e18)) return std::nullopt;
  return static_cast<int64_t>(v);
}

}  // namespace

Result<ImportResult> NcuRepImporter::Import(const std::string& path, const ImportTarget& target) {
  auto writer = store::NcuWriter::Open(target.store, target.run_id, target.source_id);
  if (!writer.ok()) return writer.error();
  ImportResult result;
  // Each metric's unit in kscope's base units and its string id, looked up once per name.
  struct Known {
    BaseUnit unit;
    int64_t id = 0;
    std::string_view name;  // in `names`
  };
  std::unordered_map<std::string_view, Known> known;
  std::deque<std::string> names;  // owns the keys of `known`
  auto known_of = [&](std::string_view metric) -> Result<const Known*> {
    if (auto it = known.find(metric); it != known.end()) return &it->second;
    auto id = writer->MetricId(metric);
    if (!id.ok()) return id.error();
    names.emplace_back(metric);
    return &known.emplace(names.back(), Known{NormalizeUnit(RepBaseUnit(metric)), *id, names.back()}).first->second;
  };
  // Each launch's figures, derived beside the writing from the rows written, when every launch
  // of the run is this file's (a run that already had launches gets them from the store).
  // Within one report no two launches share a row: ncu's result ID, part of a launch's
  // identity in the store, is its position in the report.
  std::optional<analysis::LaunchFiguresBuilder> figures;
  if (writer->empty_at_open()) figures.emplace();
  auto on_launch = [&](const RepLaunch& l) -> Status {
    store::NcuLaunchKey key;
    key.ncu_id = l.id;
    key.pid = l.pid;
    key.process = std::string(l.process);
    key.host = std::string(l.host);
    key.name = std::string(l.name());
    key.context = IntMetric(l, "launch__context_id");
    key.stream = IntMetric(l, "launch__stream_id");
    key.device = IntMetric(l, "launch__device_id");
    const auto major = IntMetric(l, "device__attribute_compute_capability_major");
    const auto minor = IntMetric(l, "device__attribute_compute_capability_minor");
    if (major && minor) key.cc = fmt::format("{}.{}", *major, *minor);
    key.grid = l.grid;
    key.block = l.block;
    key.nvtx = l.nvtx;
    auto launch = writer->Launch(key);
    if (!launch.ok()) return launch.error();
    std::vector<analysis::LaunchFiguresBuilder::Metric> rows;
    if (figures) rows.reserve(l.metrics.size());
    for (const RepMetric& m : l.metrics) {
      // Only instance values, no value of the whole: ncu's page leaves the cell empty, and
      // the store keeps one value per metric.
      if (m.value.kind == RepValue::Kind::kNone && m.instanced) continue;
      auto k = known_of(m.name);
      if (!k.ok()) return k.error();
      const BaseUnit& unit = (*k)->unit;
      std::optional<double> value;
      std::string text;
      if (m.value.numeric() && std::isfinite(m.value.number())) {
        value = m.value.number() * unit.factor;
      } else {
        text = FormatRawCell(m.value, RawColumn{});
      }
      KSCOPE_RETURN_IF_ERROR(writer->Metric(*launch, (*k)->id, value, text, unit.unit, true));
      if (figures) rows.push_back({(*k)->name, value, std::move(text), unit.unit});
    }
    if (figures) figures->Add(*launch, std::move(rows));
    for (const RepRule& r : l.rules) {
      KSCOPE_RETURN_IF_ERROR(writer->Rule(*launch, store::NcuRuleRow{std::string(r.section), std::string(r.rule),
                                                                     r.type, r.text, r.speedup_type, r.speedup}));
    }
    ++result.rows_read;
    return Status::Ok();
  };
  auto read = ReadRep(path, on_launch, RepInstances::kSkip);
  if (!read.ok()) return read.error();
  KSCOPE_RETURN_IF_ERROR(writer->Finish());
  if (read->launches == 0) {
    return Error{path, "an Nsight Compute report with no profiled launches",
                 "profile again; check that ncu's kernel filters matched a kernel"};
  }
  result.format_version = fmt::format("ncu-rep v{}", read->version);
  if (!read->gpu.empty()) result.learned.gpu = read->gpu;
  if (!read->ncu_version.empty()) result.learned.ncu_version = read->ncu_version;
  if (!read->cuda_version.empty()) result.learned.cuda_version = read->cuda_version;
  if (figures) result.launch_figures = figures->Finish();
  return result;
}

}  // namespace kscope::import::ncu
