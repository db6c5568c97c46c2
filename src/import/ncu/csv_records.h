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

// Bounds no ncu page comes near (the devset's and the zoo's pages: lines up to 135 KB, fields up
// to 1.2 KB, records up to 2,238 fields, the raw page of the full section set), so that a
// damaged or hostile file is refused with one line instead of filling memory and the store.
inline constexpr size_t kMaxCsvLineBytes = size_t{4} << 20;
inline constexpr size_t kMaxCsvRecordBytes = size_t{16} << 20;  // a record over lines
inline constexpr size_t kMaxCsvFieldBytes = size_t{1} << 20;
inline constexpr size_t kMaxCsvFields = 65536;

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
// A malformed or cut-off file, or one past a bound above, gives an error naming the line.
Result<CsvStats> ReadCsvRecords(const std::string& path, const std::function<Status(const CsvRecord&)>& on_record);

}  // namespace kscope::import::ncu
