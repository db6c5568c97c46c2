// kscope report's files: report.json, report.md and report.html in one folder, each written
// whole or not at all (util/atomic_file.h), each on its own: one that fails does not stop the
// others.
#pragma once

#include <filesystem>
#include <vector>

#include "report/run_report.h"
#include "util/status.h"

namespace kscope::report {

struct ReportFile {
  std::filesystem::path path;  // DIR/report.json, DIR/report.md or DIR/report.html
  Status status;               // why it was not written; a file that failed keeps its previous contents
};

// Writes the three files into `dir` (which must exist), in that order; one entry each.
std::vector<ReportFile> WriteReportFiles(const RunReport& report, const std::filesystem::path& dir);

}  // namespace kscope::report
