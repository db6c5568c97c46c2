#include "import/ncu/required_columns.h"

#include <fmt/format.h>

#include <algorithm>

namespace kscope::import::ncu {

namespace {
bool Has(const std::vector<std::string>& header, std::string_view column) {
  return std::find(header.begin(), header.end(), column) != header.end();
}
}  // namespace

Status CheckShapeColumns(const std::string& path, const std::vector<std::string>& header, std::string_view page) {
  for (const char* column : {"Grid Size", "Block Size"}) {
    if (Has(header, column)) continue;
    return Error{
        path,
        fmt::format("ncu {} page without a \"{}\" column (every launch would have the shape (0, 0, 0))", page, column),
        fmt::format("export the page with all its launch columns: ncu --import REPORT.ncu-rep --page {} "
                    "--csv > FILE.csv",
                    page)};
  }
  return Status::Ok();
}

Status CheckRawDuration(const std::string& path, const std::vector<std::string>& header) {
  if (Has(header, kDurationMetric)) return Status::Ok();
  return Error{path,
               fmt::format("ncu raw page without a {} column (every kernel's GPU time would be 0)", kDurationMetric),
               fmt::format("profile with that metric (ncu --section SpeedOfLight, or --metrics {},...) and export "
                           "the raw page: ncu --import REPORT.ncu-rep --page raw --csv > FILE.csv",
                           kDurationMetric)};
}

Error DetailsWithoutDuration(const std::string& path) {
  return Error{path,
               "ncu details page without a \"Duration\" metric of the GPU Speed Of Light Throughput section (every "
               "kernel's GPU time would be 0)",
               "profile with that section (ncu --section SpeedOfLight) or import the raw page: ncu --import "
               "REPORT.ncu-rep --page raw --csv > FILE.csv"};
}

}  // namespace kscope::import::ncu
