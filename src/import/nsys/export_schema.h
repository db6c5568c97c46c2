// Everything kscope knows about the nsys SQLite export's versions lives here: which schema
// versions it reads, which table variants exist (NVTX_EVENTS, _V2, _V3), and which columns
// a table has in this file. Importers ask this instead of naming tables and columns blindly.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::import::nsys {

// The export schema majors kscope reads, and the versions it was checked against.
inline constexpr int kSupportedSchemaMajor = 3;

struct ExportSchema {
  std::string version;  // EXPORT_SCHEMA_VERSION, e.g. "3.20.3"
  int major = 0, minor = 0, micro = 0;
  std::string product_version;                           // EXPORT_PRODUCT_VERSION, e.g. "2025.3.2.0"
  std::optional<std::string> nvtx_table;                 // the NVTX table this export uses, if any
  std::map<std::string, std::set<std::string>> columns;  // table -> its columns

  [[nodiscard]] bool HasTable(const std::string& table) const { return columns.contains(table); }
  [[nodiscard]] bool HasColumn(const std::string& table, const std::string& column) const;
  // "a, b, NULL AS c": the wanted columns, with NULL for those this export lacks.
  [[nodiscard]] std::string SelectList(const std::string& table, const std::vector<std::string>& wanted) const;
};

// Reads META_DATA_EXPORT and the table list; fails with a clear message when `db` is not
// an nsys export or its schema version is not one kscope reads.
Result<ExportSchema> DetectExportSchema(sql::Db& db, const std::string& path);

}  // namespace kscope::import::nsys
