#include "import/nsys/string_mapper.h"

namespace kscope::import::nsys {

Status ExportStrings::Load(sql::Db& export_db) {
  auto q = export_db.Prepare("SELECT id, value FROM StringIds");
  if (!q.ok()) return q.error();
  while (q->Step()) values_.emplace(q->Int(0), q->Text(1));
  return q->status();
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
