// report.html: the report as one self-contained page (placeholder until the Vega page lands).
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>

#include "util/status.h"

namespace kscope::report {

Status WriteHtmlReport(const nlohmann::json& report, std::ostream& out);

}  // namespace kscope::report
