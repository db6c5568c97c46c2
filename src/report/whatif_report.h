// kscope whatif's views of one typed answer (analysis/graph/whatif.h): the terminal's tables
// and one JSON document, siblings that render the same WhatIfAnswer.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>

#include "analysis/graph/whatif.h"
#include "report/table.h"

namespace kscope::report {

// The answer's tables: the graph, then per step set its step times and its critical path
// before and after, then the kernels on the path.
std::vector<Table> WhatIfTables(const analysis::graph::WhatIfAnswer& a);

// Every figure of the answer (times in ns).
nlohmann::ordered_json WhatIfJson(const analysis::graph::WhatIfAnswer& a);

// The terminal view: a heading, the notes, and the tables.
void WriteWhatIf(const analysis::graph::WhatIfAnswer& a, std::ostream& out);

}  // namespace kscope::report
