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

// The summary reports kscope computes from a run's summary tables, by their nsys names (the
// trace reports, report/nsys_trace.h, read the export; nsys_report_catalog.h lists both).
const std::vector<std::string_view>& NsysReportNames();

// The SQL that lists a run's kernels (kernel_summary k, their names string s) in
// cuda_gpu_kern_sum's order: by total time, then fewer launches first, then name. Every
// kernel ranking kscope prints uses it, so it ranks as nsys does, ties included.
inline constexpr std::string_view kKernelsInNsysOrder =
    "FROM kernel_summary k JOIN string s ON s.id = k.name_id WHERE k.run_id = ?1 ORDER BY k.total DESC, k.n, s.value";

// `report` by its nsys name or an older one (gpukernsum); an unknown name's error lists them.
Result<Table> BuildNsysReport(store::Store& store, int64_t run_id, std::string_view report);

}  // namespace kscope::report
