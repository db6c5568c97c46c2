// ncu's raw page as CSV (ncu --import R --page raw --csv): a header row of ID columns and
// metric names, a units row, then one row per profiled launch.
#pragma once

#include "import/importer.h"

namespace kscope::import::ncu {

class NcuRawCsvImporter : public Importer {
 public:
  [[nodiscard]] std::string_view format() const override { return "ncu-raw-csv"; }
  [[nodiscard]] bool writes_timeline() const override { return false; }
  Result<ImportResult> Import(const std::string& path, const ImportTarget& target) override;
};

}  // namespace kscope::import::ncu
