// What several tests need: the devset files, reading a file whole, and a report of a run as
// the CSV text `kscope stats --format csv` prints.
#pragma once

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "report/nsys_stats.h"
#include "report/table.h"
#include "store/store.h"

namespace kscope::testing {

// A file under tests/data/nsys/, e.g. NsysData("tiny_cuda.sqlite").
inline std::string NsysData(const std::string& name) { return std::string(KSCOPE_TEST_DATA_DIR) + "/nsys/" + name; }

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The report's CSV, or the error line if it cannot be built.
inline std::string ReportCsv(store::Store& store, int64_t run, std::string_view report) {
  auto table = report::BuildNsysReport(store, run, report);
  if (!table.ok()) return table.error().Line();
  std::ostringstream csv;
  report::WriteCsv(*table, csv);
  return csv.str();
}

}  // namespace kscope::testing
