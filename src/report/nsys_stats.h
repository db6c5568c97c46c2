// nsys's own stats reports, rebuilt from a run's summary tables: same columns, same rows,
// same order and the same printed values as `nsys stats --format csv`.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "report/table.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::report {

// The reports kscope reproduces, by their nsys names.
const std::vector<std::string_view>& NsysReportNames();

Result<Table> BuildNsysReport(store::Store& store, int64_t run_id, std::string_view report);

}  // namespace kscope::report
