// An Nsight Compute report (.ncu-rep) imported natively (rep_reader.h): every launch and
// every metric, no ncu needed. NcuReportImporter (report_importer.h) is the fallback that
// has the installed ncu export the pages instead.
#pragma once

#include "import/importer.h"

namespace kscope::import::ncu {

class NcuRepImporter : public Importer {
 public:
  [[nodiscard]] std::string_view format() const override { return "ncu-rep"; }
  [[nodiscard]] bool writes_timeline() const override { return false; }
  Result<ImportResult> Import(const std::string& path, const ImportTarget& target) override;
};

}  // namespace kscope::import::ncu
