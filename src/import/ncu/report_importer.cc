#include "import/ncu/report_importer.h"

#include <stdlib.h>  // mkdtemp

#include <filesystem>

#include "import/ncu/details_csv_importer.h"
#include "import/ncu/raw_csv_importer.h"

namespace kscope::import::ncu {

namespace fs = std::filesystem;

namespace {

// A private temporary directory, removed with everything in it when this goes away.
class TempDir {
 public:
  static Result<TempDir> Make() {
    std::string tmpl = (fs::temp_directory_path() / "kscope-ncu-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      return Error{tmpl, "cannot make a temporary directory", "check TMPDIR and free space"};
    }
    return TempDir(tmpl);
  }
  TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  [[nodiscard]] std::string File(const char* name) const { return (fs::path(path_) / name).string(); }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace

Result<ImportResult> NcuReportImporter::Import(const std::string& path, const ImportTarget& target) {
  auto dir = TempDir::Make();
  if (!dir.ok()) return dir.error();
  const std::string raw = dir->File("raw.csv"), details = dir->File("details.csv");
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
