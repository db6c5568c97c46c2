#include "report/html_report.h"

#include <ostream>

namespace kscope::report {

Status WriteHtmlReport(const nlohmann::json& /*report*/, std::ostream& out) {
  out << "<!doctype html><title>kscope report</title><p>report.html is being built</p>\n";
  return Status::Ok();
}

}  // namespace kscope::report
