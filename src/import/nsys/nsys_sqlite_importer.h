// Imports an nsys SQLite export (nsys export --type sqlite): kernels, CUDA API calls,
// memory copies and sets, NVTX ranges, and what the export says about the run.
#pragma once

#include "import/importer.h"

namespace kscope::import::nsys {

class NsysSqliteImporter final : public Importer {
 public:
  [[nodiscard]] std::string_view format() const override { return "nsys-sqlite"; }
  [[nodiscard]] bool writes_timeline() const override { return true; }
  Result<ImportResult> Import(const std::string& path, const ImportTarget& target) override;
};

}  // namespace kscope::import::nsys
