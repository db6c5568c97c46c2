// kscope import --rederive: what an upgraded store's runs lack (run_gap), filled from their
// source files where those still exist unchanged.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "import/store_upgrade.h"
#include "util/file_hash.h"

namespace kscope::import {

namespace fs = std::filesystem;

namespace {

struct StoredSource {
  int64_t id = 0;
  std::string path, format;
  int64_t bytes = 0;
  std::optional<std::string> hash;
};

struct Gap {
  int64_t run_id = 0;
  std::string what;
};

Result<std::vector<Gap>> GapsOf(store::Store& store, const std::vector<int64_t>& runs) {
  auto q = store.db().Prepare("SELECT run_id, what FROM run_gap ORDER BY run_id, what");
  if (!q.ok()) return q.error();
  std::vector<Gap> gaps;
  while (q->Step()) {
    const int64_t run = q->Int(0);
    if (runs.empty() || std::find(runs.begin(), runs.end(), run) != runs.end()) gaps.push_back({run, q->Text(1)});
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  return gaps;
}

Result<std::vector<StoredSource>> SourcesOf(store::Store& store, int64_t run_id) {
  auto q =
      store.db().Prepare("SELECT id, path, format, bytes, content_hash FROM source_file WHERE run_id = ?1 ORDER BY id");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  std::vector<StoredSource> sources;
  while (q->Step()) sources.push_back({q->Int(0), q->Text(1), q->Text(2), q->Int(3), q->OptText(4)});
  KSCOPE_RETURN_IF_ERROR(q->status());
  return sources;
}

// Why the file at the stored path is not the one imported ("" when it is): gone, another size,
// or another content under the hash the store kept.
Result<std::string> WhyNotTheSame(const StoredSource& s) {
  std::error_code ec;
  if (!fs::is_regular_file(s.path, ec)) return fmt::format("{} is gone", s.path);
  const auto size = fs::file_size(s.path, ec);
  if (ec || static_cast<int64_t>(size) != s.bytes) return fmt::format("{} changed since its import", s.path);
  if (!s.hash) return std::string();
  auto now = s.hash->starts_with("fnv1a64:") ? LegacyFnv1aHash(s.path) : FileContentHash(s.path);
  if (!now.ok()) return now.error();
  return *now == *s.hash ? std::string() : fmt::format("{} changed since its import", s.path);
}

Result<std::string> FillContentHashes(store::Store& store, const std::vector<StoredSource>& sources) {
  for (const StoredSource& s : sources) {
    if (s.hash && s.hash->starts_with("xxh3-64:")) continue;
    auto why = WhyNotTheSame(s);
    if (!why.ok() || !why->empty()) return why;
    auto hash = FileContentHash(s.path);
    if (!hash.ok()) return hash.error();
    KSCOPE_RETURN_IF_ERROR(store.SetSourceContentHash(s.id, *hash));
  }
  return std::string();
}

// The thread names of the run's nsys export (its ThreadNames table).
Result<std::string> FillThreadNames(store::Store& store, int64_t run_id, const std::vector<StoredSource>& sources) {
  auto nsys = std::find_if(sources.begin(), sources.end(), [](const auto& s) { return s.format == "nsys-sqlite"; });
  if (nsys == sources.end()) return std::string("the run has no nsys export");
  auto why = WhyNotTheSame(*nsys);
  if (!why.ok() || !why->empty()) return why;
  auto exported = sql::Db::Open(nsys->path, sql::OpenMode::kReadOnly);
  if (!exported.ok()) return exported.error();
  if (!exported->TableExists("ThreadNames")) return std::string();
  auto q = exported->Prepare(
      "SELECT t.globalTid, s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId "
      "WHERE t.globalTid IS NOT NULL");
  if (!q.ok()) return Error{nsys->path, "cannot read its thread names: " + q.error().what, ""};
  auto insert =
      store.db().Prepare("INSERT OR REPLACE INTO thread_name (run_id, global_tid, name_id) VALUES (?1, ?2, ?3)");
  if (!insert.ok()) return insert.error();
  while (q->Step()) {
    auto name = store.InternString(q->Text(1));
    if (!name.ok()) return name.error();
    KSCOPE_RETURN_IF_ERROR(insert->Bind(1, run_id).Bind(2, q->Int(0)).Bind(3, *name).Run());
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  return std::string();
}

Status CloseGap(store::Store& store, const Gap& gap) {
  auto del = store.db().Prepare("DELETE FROM run_gap WHERE run_id = ?1 AND what = ?2");
  if (!del.ok()) return del.error();
  return del->Bind(1, gap.run_id).Bind(2, gap.what).Run();
}

Result<RederiveOutcome> FillGap(store::Store& store, const Gap& gap) {
  auto sources = SourcesOf(store, gap.run_id);
  if (!sources.ok()) return sources.error();
  Result<std::string> why = gap.what == "content_hash"   ? FillContentHashes(store, *sources)
                            : gap.what == "thread_names" ? FillThreadNames(store, gap.run_id, *sources)
                                                         : Result<std::string>("kscope cannot fill it");
  if (!why.ok()) return why.error();
  RederiveOutcome out{gap.run_id, gap.what, why->empty(), *why};
  if (out.filled) KSCOPE_RETURN_IF_ERROR(CloseGap(store, gap));
  return out;
}

}  // namespace

Result<std::vector<RederiveOutcome>> Rederive(store::Store& store, const std::vector<int64_t>& runs) {
  auto tx = sql::Transaction::Begin(store.db());
  if (!tx.ok()) return tx.error();
  auto gaps = GapsOf(store, runs);
  if (!gaps.ok()) return gaps.error();
  std::vector<RederiveOutcome> outcomes;
  for (const Gap& gap : *gaps) {
    auto out = FillGap(store, gap);
    if (!out.ok()) return out.error();
    outcomes.push_back(std::move(out).value());
  }
  KSCOPE_RETURN_IF_ERROR(tx->Commit());
  return outcomes;
}

}  // namespace kscope::import
