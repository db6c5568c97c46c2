#include "import/nsys/export_schema.h"

#include <fmt/format.h>

#include <array>
#include <charconv>

namespace kscope::import::nsys {

bool ExportSchema::HasColumn(const std::string& table, const std::string& column) const {
  auto it = columns.find(table);
  return it != columns.end() && it->second.contains(column);
}

std::string ExportSchema::SelectList(const std::string& table, const std::vector<std::string>& wanted) const {
  std::string out;
  for (const auto& c : wanted) {
    if (!out.empty()) out += ", ";
    out += HasColumn(table, c) ? "\"" + c + "\"" : "NULL AS \"" + c + "\"";
  }
  return out;
}

namespace {
bool ParseVersion(const std::string& v, ExportSchema& s) {
  std::array<int*, 3> parts = {&s.major, &s.minor, &s.micro};
  const char* p = v.data();
  const char* end = v.data() + v.size();
  for (size_t i = 0; i < parts.size(); ++i) {
    auto [next, ec] = std::from_chars(p, end, *parts[i]);
    if (ec != std::errc()) return i > 0;
    p = next;
    if (p == end) return true;
    if (*p != '.') return false;
    ++p;
  }
  return p == end;
}
}  // namespace

Result<ExportSchema> DetectExportSchema(sql::Db& db, const std::string& path) {
  ExportSchema s;
  auto tables = db.Prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
  if (!tables.ok()) {
    return Error{path, "not a readable SQLite database (" + db.ErrorMessage() + ")",
                 "the file is truncated or corrupt: copy or export it again"};
  }
  std::vector<std::string> names;
  while (tables->Step()) names.push_back(tables->Text(0));
  if (!tables->status().ok()) {
    return Error{path, "corrupt SQLite file (" + db.ErrorMessage() + ")", "copy or export it again"};
  }
  for (const auto& t : names) {
    auto cols = db.Prepare("SELECT name FROM pragma_table_info(?1)");
    if (!cols.ok()) return cols.error();
    cols->Bind(1, t);
    auto& set = s.columns[t];
    while (cols->Step()) set.insert(cols->Text(0));
  }

  if (!s.HasTable("META_DATA_EXPORT")) {
    return Error{path, "an SQLite database, but not an nsys export (it has no META_DATA_EXPORT table)",
                 "export the report with: nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep"};
  }
  auto meta = db.Prepare("SELECT name, value FROM META_DATA_EXPORT");
  if (!meta.ok()) return Error{path, "unreadable META_DATA_EXPORT table", "export the report again"};
  while (meta->Step()) {
    const std::string name = meta->Text(0);
    if (name == "EXPORT_SCHEMA_VERSION") s.version = meta->Text(1);
    if (name == "EXPORT_PRODUCT_VERSION") s.product_version = meta->Text(1);
  }
  if (!meta->status().ok()) {
    return Error{path, "corrupt SQLite file (" + db.ErrorMessage() + ")", "copy or export it again"};
  }
  if (s.version.empty()) {
    return Error{path, "nsys export without EXPORT_SCHEMA_VERSION in META_DATA_EXPORT",
                 "export the report again with nsys 2023.1 or later"};
  }
  if (!ParseVersion(s.version, s)) {
    return Error{path, "unreadable nsys export schema version '" + s.version + "'", "export the report again"};
  }
  if (s.major != kSupportedSchemaMajor) {
    return Error{
        path,
        fmt::format("nsys export schema version {} is not one kscope reads ({}.x)", s.version, kSupportedSchemaMajor),
        "export the report with an nsys whose export schema is 3.x (2023.1 to 2025.x), or update kscope"};
  }
  // Newer nsys versions add a version suffix to the NVTX table; take the newest present.
  for (const char* t : {"NVTX_EVENTS_V3", "NVTX_EVENTS_V2", "NVTX_EVENTS"}) {
    if (s.HasTable(t)) {
      s.nvtx_table = t;
      break;
    }
  }
  return s;
}

}  // namespace kscope::import::nsys
