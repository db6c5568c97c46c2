#include "report/report_files.h"

#include <sstream>
#include <string>

#include "report/html_report.h"
#include "report/report_text.h"
#include "report/run_report_json.h"
#include "util/atomic_file.h"

namespace kscope::report {

std::vector<ReportFile> WriteReportFiles(const RunReport& report, const std::filesystem::path& dir) {
  std::vector<ReportFile> files;
  files.push_back({dir / "report.json", WriteFileAtomically(dir / "report.json", ReportJsonText(report))});
  std::ostringstream md;
  WriteReportMarkdown(report, md);
  files.push_back({dir / "report.md", WriteFileAtomically(dir / "report.md", md.str())});
  const std::filesystem::path html_path = dir / "report.html";
  std::ostringstream html;
  Status page = WriteHtmlReport(report, html);
  if (page.ok()) {
    page = WriteFileAtomically(html_path, html.str());
  } else {  // the page could not be made: say which file that leaves out, and why
    const Error& why = page.error();
    page = Error{html_path.string(), "not written: " + (why.where.empty() ? "" : why.where + ": ") + why.what, why.fix};
  }
  files.push_back({html_path, page});
  return files;
}

}  // namespace kscope::report
