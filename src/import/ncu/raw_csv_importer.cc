#include "import/ncu/raw_csv_importer.h"

#include <fmt/format.h>

#include "import/ncu/csv_records.h"
#include "import/ncu/launch_columns.h"
#include "import/ncu/required_columns.h"
#include "import/ncu/units.h"
#include "store/ncu_writer.h"

namespace kscope::import::ncu {

namespace {

constexpr std::string_view kFix = "export the raw page again: ncu --import REPORT.ncu-rep --page raw --csv > FILE.csv";

struct MetricColumn {
  size_t index;
  std::string name;
  BaseUnit unit;
};

}  // namespace

Result<ImportResult> NcuRawCsvImporter::Import(const std::string& path, const ImportTarget& target) {
  auto writer = store::NcuWriter::Open(target.store, target.run_id, target.source_id);
  if (!writer.ok()) return writer.error();
  ImportResult result;
  result.format_version = "raw";
  std::vector<std::string> header;
  std::optional<LaunchColumns> columns;
  std::vector<MetricColumn> metrics;
  int64_t record_no = 0;
  auto on_record = [&](const CsvRecord& rec) -> Status {
    const int64_t n = record_no++;
    if (n == 0) {
      header = rec.fields;
      auto found = LaunchColumns::Find(header);
      if (!found.ok()) return Error{path, "not an ncu raw page: " + found.error().what, std::string(kFix)};
      KSCOPE_RETURN_IF_ERROR(CheckShapeColumns(path, header, "raw"));
      KSCOPE_RETURN_IF_ERROR(CheckRawDuration(path, header));
      columns = std::move(found).value();
      return Status::Ok();
    }
    if (rec.fields.size() != header.size()) {
      if (n == 1)
        return Error{path, "the units row has a different number of columns than the header", std::string(kFix)};
      ++result.rows_skipped;
      return target.store.AddProblem(
          target.run_id, target.source_id, fmt::format("line {}", rec.line),
          fmt::format("{} columns where the header has {}", rec.fields.size(), header.size()), "");
    }
    if (n == 1) {  // the units row
      for (size_t i = 0; i < header.size(); ++i) {
        if (!columns->IsIdentity(i)) metrics.push_back({i, header[i], NormalizeUnit(rec.fields[i])});
      }
      return Status::Ok();
    }
    auto key = columns->Key(rec.fields);
    if (!key.ok()) {
      ++result.rows_skipped;
      return target.store.AddProblem(target.run_id, target.source_id, fmt::format("line {}", rec.line),
                                     key.error().what, "");
    }
    auto launch = writer->Launch(*key);
    if (!launch.ok()) return launch.error();
    for (const auto& m : metrics) {
      const std::string& cell = rec.fields[m.index];
      if (cell.empty()) continue;
      const auto v = ParseNumber(cell);
      KSCOPE_RETURN_IF_ERROR(writer->Metric(
          *launch, m.name, v ? std::optional<double>(*v * m.unit.factor) : std::nullopt, cell, m.unit.unit, true));
    }
    ++result.rows_read;
    return Status::Ok();
  };
  auto stats = ReadCsvRecords(path, on_record);
  if (!stats.ok()) return stats.error();
  KSCOPE_RETURN_IF_ERROR(writer->Finish());
  if (record_no == 0) return Error{path, "no header row", std::string(kFix)};
  if (record_no == 1) return Error{path, "no units row after the header (cut off?)", std::string(kFix)};
  return result;
}

}  // namespace kscope::import::ncu
