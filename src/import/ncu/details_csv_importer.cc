#include "import/ncu/details_csv_importer.h"

#include <fmt/format.h>

#include "import/ncu/csv_records.h"
#include "import/ncu/launch_columns.h"
#include "import/ncu/required_columns.h"
#include "import/ncu/units.h"
#include "store/ncu_writer.h"
#include "tools/metric_catalog.h"

namespace kscope::import::ncu {

namespace {

constexpr std::string_view kFix =
    "export the details page again: ncu --import REPORT.ncu-rep --page details --csv > FILE.csv";

struct Columns {
  size_t section = 0, metric = 0, unit = 0, value = 0, rule = 0, rule_type = 0, rule_text = 0, speedup_type = 0,
         speedup = 0;
};

std::optional<Columns> FindColumns(const std::vector<std::string>& header) {
  auto at = [&](std::string_view name) -> std::optional<size_t> {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    return std::nullopt;
  };
  auto section = at("Section Name"), metric = at("Metric Name"), unit = at("Metric Unit"), value = at("Metric Value");
  auto rule = at("Rule Name"), type = at("Rule Type"), text = at("Rule Description");
  if (!section || !metric || !unit || !value || !rule || !type || !text) return std::nullopt;
  return Columns{*section,
                 *metric,
                 *unit,
                 *value,
                 *rule,
                 *type,
                 *text,
                 at("Estimated Speedup Type").value_or(0),
                 at("Estimated Speedup").value_or(0)};
}

}  // namespace

Result<ImportResult> NcuDetailsCsvImporter::Import(const std::string& path, const ImportTarget& target) {
  auto writer = store::NcuWriter::Open(target.store, target.run_id, target.source_id);
  if (!writer.ok()) return writer.error();
  ImportResult result;
  result.format_version = "details";
  size_t width = 0;
  std::optional<LaunchColumns> launch_columns;
  std::optional<Columns> cols;
  int64_t record_no = 0;
  bool has_duration = false;  // a launch's Duration was read
  std::vector<std::string> row;
  auto on_record = [&](const CsvRecord& rec) -> Status {
    if (record_no++ == 0) {
      width = rec.fields.size();
      auto found = LaunchColumns::Find(rec.fields);
      cols = FindColumns(rec.fields);
      if (!found.ok() || !cols) {
        return Error{path, "not an ncu details page (no Section Name, Metric Name, ... columns)", std::string(kFix)};
      }
      KSCOPE_RETURN_IF_ERROR(CheckShapeColumns(path, rec.fields, "details"));
      launch_columns = std::move(found).value();
      return Status::Ok();
    }
    // Metric rows stop after the value; rule rows fill every column.
    if (rec.fields.size() > width || rec.fields.size() <= cols->value) {
      ++result.rows_skipped;
      return target.store.AddProblem(target.run_id, target.source_id, fmt::format("line {}", rec.line),
                                     fmt::format("{} columns where the header has {}", rec.fields.size(), width), "");
    }
    row = rec.fields;
    row.resize(width);
    auto key = launch_columns->Key(row);
    if (!key.ok()) {
      ++result.rows_skipped;
      return target.store.AddProblem(target.run_id, target.source_id, fmt::format("line {}", rec.line),
                                     key.error().what, "");
    }
    auto launch = writer->Launch(*key);
    if (!launch.ok()) return launch.error();
    ++result.rows_read;
    if (!row[cols->rule].empty()) {
      store::NcuRuleRow r{row[cols->section],
                          row[cols->rule],
                          row[cols->rule_type],
                          row[cols->rule_text],
                          cols->speedup_type != 0 ? row[cols->speedup_type] : "",
                          cols->speedup != 0 ? ParseNumber(row[cols->speedup]) : std::nullopt};
      return writer->Rule(*launch, r);
    }
    const std::string& title = row[cols->section];
    const std::string& label = row[cols->metric];
    const tools::SectionMetric* known = tools::FindSectionMetric(title, label);
    const std::string metric = known != nullptr ? std::string(known->metric) : "details:" + title + "/" + label;
    has_duration = has_duration || metric == kDurationMetric;
    const BaseUnit unit = NormalizeUnit(row[cols->unit]);
    const auto v = ParseNumber(row[cols->value]);
    return writer->Metric(*launch, metric, v ? std::optional<double>(*v * unit.factor) : std::nullopt, row[cols->value],
                          unit.unit, false);
  };
  auto stats = ReadCsvRecords(path, on_record);
  if (!stats.ok()) return stats.error();
  KSCOPE_RETURN_IF_ERROR(writer->Finish());
  if (record_no == 0) return Error{path, "no header row", std::string(kFix)};
  if (result.rows_read > 0 && !has_duration) return DetailsWithoutDuration(path);
  return result;
}

}  // namespace kscope::import::ncu
