// The page's own CSS and JavaScript (src/report/html/), built into kscope so that
// report.html needs nothing at run time.
#pragma once

#include <string_view>

namespace kscope::report {

// The text of src/report/html/NAME; an unknown name is a programming error (aborts).
std::string_view HtmlAsset(std::string_view name);

}  // namespace kscope::report
