#include "import/ncu/report_importer.h"

#include <filesystem>

#include "import/ncu/details_csv_importer.h"
#include "import/ncu/raw_csv_importer.h"
#include "util/temp_dir.h"

namespace kscope::import::ncu {

namespace fs = std::filesystem;

Result<ImportResult> NcuReportImporter::Import(const std::string& path, const ImportTarget& target) {
  auto dir = TempDir::Make("kscope-ncu-");
  if (!dir.ok()) return dir.error();
  const std::string raw = (fs::path(dir->path()) / "raw.csv").string();
  const std::string details = (fs::path(dir->path()) / "details.csv").string();
  KSCOPE_RETURN_IF_ERROR(ncu_->ExportPage(path, "raw", raw));
  KSCOPE_RETURN_IF_ERROR(ncu_->ExportPage(path, "details", details));
  auto from_raw = NcuRawCsvImporter().Import(raw, target);
  if (!from_raw.ok()) {
    return Error{path, "ncu's raw page of this report: " + from_raw.error().what, "report it with the ncu version"};
  }
  auto from_details = NcuDetailsCsvImporter().Import(details, target);
  if (!from_details.ok()) {
    return Error{path, "ncu's details page of this report: " + from_details.error().what,
                 "report it with the ncu version"};
  }
  ImportResult result = std::move(from_raw).value();
  result.format_version = "ncu-rep";
  result.rows_skipped += from_details->rows_skipped;
  return result;
}

}  // namespace kscope::import::ncu
