// An Nsight Compute report (.ncu-rep), read by having ncu export its raw and details pages
// (kscope does not parse the binary report itself yet), then importing both pages.
#pragma once

#include <memory>

#include "import/importer.h"
#include "tools/ncu_tool.h"

namespace kscope::import::ncu {

class NcuReportImporter : public Importer {
 public:
  explicit NcuReportImporter(std::shared_ptr<capture::NcuTool> ncu) : ncu_(std::move(ncu)) {}
  [[nodiscard]] std::string_view format() const override { return "ncu-rep"; }
  [[nodiscard]] bool writes_timeline() const override { return false; }
  Result<ImportResult> Import(const std::string& path, const ImportTarget& target) override;

 private:
  std::shared_ptr<capture::NcuTool> ncu_;
};

}  // namespace kscope::import::ncu
