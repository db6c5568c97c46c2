// report.html: the report as one self-contained page that works offline.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>

#include "util/status.h"

namespace kscope::report {

// The report as one self-contained HTML page: the JSON embedded as data, the Vega runtime
// embedded from Debian's libjs-vega (/usr/share/javascript/vega, or $KSCOPE_VEGA_DIR), five
// charts (top kernels, roofline, stages with MFU, bottleneck mix, idle/busy strip) and HTML
// tables of the same numbers; a chart without data says why instead. Every text from the
// report is escaped. Errors: the Vega files are missing (say which package to install).
Status WriteHtmlReport(const nlohmann::json& report, std::ostream& out);

}  // namespace kscope::report
