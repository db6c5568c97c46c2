// What nsys and ncu print while they run, read line by line: progress, the report written,
// and the failures kscope explains (no kernel matched, the workload failed, the importer
// libraries are missing). The formats are those of nsys/ncu 2023.1 to 2025.3; recorded real
// outputs are in tests/data/capture/recorded/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kscope::capture {

struct NcuOutput {
  int profiled = 0;     // "==PROF== Profiling ..." lines: launches profiled so far
  int last_passes = 0;  // replay passes of the last one
  int connected = 0;    // "==PROF== Connected to process ...": processes ncu was injected into
  std::string last_kernel;
  bool no_kernels = false;                     // "==WARNING== No kernels were profiled."
  bool nvtx_push_pop_hint = false;             // ncu's note that NVTX include expressions match push/pop ranges only
  bool memory_backup = false;                  // "Backing up device memory in system memory": kernel replay is slow
  std::vector<std::string> available_kernels;  // the list ncu prints when no kernel matched
  std::vector<std::string> errors;             // "==ERROR== ..." lines, without the prefix
  std::optional<int> app_exit_code;            // "The application returned an error code (N)."
  std::optional<std::string> report;           // "==PROF== Report: PATH"
  // Returns true when the line completed a profiled launch (progress moved).
  bool Feed(std::string_view raw);
  // Whether ncu is inside the profiling of one launch: it printed `==PROF== Profiling "NAME"`
  // (in a whole line, or in `partial`, the line not yet ended) and not yet its passes. While it
  // is, it prints progress as the replay passes go; `stuck_kernel` names the launch.
  [[nodiscard]] bool Busy(std::string_view partial);
  std::string stuck_kernel;

 private:
  bool in_available_ = false;
  bool in_launch_ = false;  // a Profiling line began and its "- N passes" did not come yet
};

struct NsysOutput {
  std::vector<std::string> generated;  // paths after "Generated:"
  bool no_reports = false;             // "No reports were generated"
  bool importer_failed = false;        // "Importer error status" / "Unable to retrieve the importer version"
  std::vector<std::string> errors;     // lines that look like errors
  void Feed(std::string_view raw);

 private:
  bool in_generated_ = false;
};

}  // namespace kscope::capture
