// The nsys stats reports kscope reproduces: their names, the older names users still type,
// and when nsys skips a report because the export lacks its data.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"
#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::report {

// What an export holds, as nsys's reports test it: whether its tables exist (nsys checks a
// table's presence, not its rows).
struct NsysDataPresent {
  bool kernels = false;    // CUPTI_ACTIVITY_KIND_KERNEL
  bool api_calls = false;  // CUPTI_ACTIVITY_KIND_RUNTIME
  bool memcpys = false;    // CUPTI_ACTIVITY_KIND_MEMCPY
  bool memsets = false;    // CUPTI_ACTIVITY_KIND_MEMSET
  bool nvtx = false;       // NVTX_EVENTS
};

enum class NsysReportKind { kSummary, kTrace };

struct NsysReportSpec {
  std::string_view name;   // nsys 2025.3's name, e.g. "cuda_gpu_kern_sum"
  std::string_view title;  // nsys's display name
  NsysReportKind kind;
  std::string_view old_name;  // the name nsys 2022.3 and earlier gave it ("" if none)
};

// Every report kscope has, in the order `kscope stats --help` lists them.
const std::vector<NsysReportSpec>& NsysReports();

// The report a name means: today's name or an older one. nullptr for a name kscope does not know.
const NsysReportSpec* FindNsysReport(std::string_view name);

// The error for a report name kscope does not know: one line listing the reports it has.
Error UnknownNsysReport(std::string_view name);

// nsys's reason to skip `report` for an export holding `present`, as it prints it after
// "SKIPPED: " ("FILE does not contain NV Tools Extension (NVTX) data."), or nothing when the
// report has its data. nsys tests a report's tables in its own order: nvtx_kern_sum asks for
// NVTX, then kernels, then CUDA API calls.
std::optional<std::string> NsysSkipReason(const NsysReportSpec& report, const NsysDataPresent& present,
                                          std::string_view file);

// The data of an export file, by its tables.
Result<NsysDataPresent> DataInExport(sql::Db& export_db);

// The data of a stored run, by its event streams' rows (a stored run has kernels: kscope does
// not import an export without them). A run keeps NVTX ranges only, so an export whose NVTX
// table holds markers alone counts as one without NVTX here.
Result<NsysDataPresent> DataInRun(store::Store& store, int64_t run_id);

// The nsys exports a stored run was imported from (source_file), as their paths were at
// import, in import order.
Result<std::vector<std::string>> RunExportPaths(store::Store& store, int64_t run_id);

}  // namespace kscope::report
