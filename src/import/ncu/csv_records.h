// Streams the records of an ncu CSV file through libcsv, one record at a time. Lines that
// ncu's own log puts between records when its stdout was captured (==PROF==, ==WARNING==,
// ==ERROR==) are skipped and counted, and so is a UTF-8 byte-order mark at the start.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace kscope::import::ncu {

// The bytes some editors and Windows tools put before a UTF-8 file's first line.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

struct CsvRecord {
  std::vector<std::string> fields;
  int64_t line = 0;  // 1-based line where the record starts
};

struct CsvStats {
  int64_t records = 0;
  int64_t log_lines = 0;  // ==PROF== and similar lines skipped
};

// Calls `on_record` for every record in order; stops at the first error it returns.
// A malformed or cut-off file gives an error naming the line.
Result<CsvStats> ReadCsvRecords(const std::string& path, const std::function<Status(const CsvRecord&)>& on_record);

}  // namespace kscope::import::ncu
