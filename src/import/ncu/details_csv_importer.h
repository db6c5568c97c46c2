// ncu's details page as CSV (ncu --import R --page details --csv): one row per launch,
// section and metric (label, unit, rounded value), and one row per rule finding. Labels are
// mapped to metric names through the metric catalog; rule findings are kept as they are.
#pragma once

#include "import/importer.h"

namespace kscope::import::ncu {

class NcuDetailsCsvImporter : public Importer {
 public:
  [[nodiscard]] std::string_view format() const override { return "ncu-details-csv"; }
  [[nodiscard]] bool writes_timeline() const override { return false; }
  Result<ImportResult> Import(const std::string& path, const ImportTarget& target) override;
};

}  // namespace kscope::import::ncu
