#include "import/nsys/string_mapper.h"

#include <fmt/format.h>

#include <algorithm>

namespace kscope::import::nsys {

namespace {
constexpr std::string_view kFix =
    "export the report again (nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep), or check what wrote this "
    "file";
}  // namespace

std::optional<Error> StringPastBound(const std::string& path, std::string_view where, size_t bytes) {
  if (bytes <= kMaxExportStringBytes) return std::nullopt;
  return Error{path,
               fmt::format("{} is a string of {} bytes, past kscope's bound of {} MiB for one string of an nsys "
                           "export (kernel names and NVTX texts stay below 10 KB)",
                           where, bytes, kMaxExportStringBytes >> 20),
               std::string(kFix)};
}

Status ExportStrings::Load(sql::Db& export_db, const std::string& path) {
  // The length first: a string past the bound is refused before it is copied.
  auto corrupt = [&] {
    return Error{path, fmt::format("corrupt SQLite file while reading StringIds ({})", export_db.ErrorMessage()),
                 "copy or export it again"};
  };
  auto q = export_db.Prepare("SELECT id, length(CAST(value AS BLOB)), value FROM StringIds");
  if (!q.ok()) return corrupt();
  size_t total = 0;
  while (q->Step()) {
    const auto bytes = static_cast<size_t>(std::max<int64_t>(q->Int(1), 0));
    if (auto e = StringPastBound(path, fmt::format("StringIds id {}", q->Int(0)), bytes)) return *e;
    total += bytes;
    if (total > kMaxExportStringsBytes) {
      return Error{path,
                   fmt::format("its StringIds hold more than {} MiB of text, past kscope's bound for an nsys export "
                               "(a 67 MB export of 304,000 kernels holds about 1 MB)",
                               kMaxExportStringsBytes >> 20),
                   std::string(kFix)};
    }
    values_.emplace(q->Int(0), q->Text(2));
  }
  if (!q->status().ok()) return corrupt();
  return Status::Ok();
}

const std::string* ExportStrings::Value(int64_t id) const {
  auto it = values_.find(id);
  return it == values_.end() ? nullptr : &it->second;
}

Result<int64_t> StringMapper::Intern(const std::string& value) {
  const std::lock_guard<std::mutex> hold(lock_);
  return store_.InternString(value);
}

Result<std::optional<int64_t>> StringMapper::Map(int64_t id) {
  if (auto it = mapped_.find(id); it != mapped_.end()) return std::optional<int64_t>(it->second);
  const std::string* v = strings_.Value(id);
  if (v == nullptr) return std::optional<int64_t>();
  auto sid = Intern(*v);
  if (!sid.ok()) return sid.error();
  mapped_.emplace(id, *sid);
  return std::optional<int64_t>(*sid);
}

}  // namespace kscope::import::nsys
