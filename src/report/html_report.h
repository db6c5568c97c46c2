// report.html: the report as one self-contained page that works offline.
#pragma once

#include <iosfwd>

#include "report/run_report.h"
#include "util/status.h"

namespace kscope::report {

// The report as one self-contained HTML page: its JSON (ToJson) embedded as the charts' data,
// the Vega runtime built into kscope from Debian's libjs-vega (or $KSCOPE_VEGA_DIR's,
// report/vega_runtime.h), five charts (top kernels, roofline, stages with MFU, bottleneck mix,
// idle/busy strip) and HTML tables of the same numbers; a chart without data says why instead.
// Every text from the report is escaped. Errors: $KSCOPE_VEGA_DIR lacks a Vega module, or the
// stream fails.
Status WriteHtmlReport(const RunReport& report, std::ostream& out);

}  // namespace kscope::report
