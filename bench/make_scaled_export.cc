// make_scaled_export IN.sqlite OUT.sqlite [--kernels N] [--range NAME]
//
// Builds a large, realistic nsys export from a real one by repeating its decode loop: OUT is
// a copy of IN plus K copies of everything inside the NVTX range NAME (default "decode"): the
// runtime API calls that start inside it, the kernels, memcpys and memsets those calls
// launched, and the NVTX events that start inside it (the range itself included). The copies
// follow one another, each shifted by the range's length; the first starts where the range
// would if it began at the end of the trace's last event (not right after the original range:
// the events after it would then fall inside copy 1). Copy c's correlation ids are shifted by
// c times (largest id + 1), so they stay unique and still link each GPU operation to its
// launch (correlationId + process). K is the fewest copies that bring the export to N kernels.
// Every other table is kept as it is, but for the span in ANALYSIS_DETAILS, which ends at the
// last copy's end. One transaction, INSERT ... SELECT.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "util/sqlite.h"

namespace {

using kscope::Error;
using kscope::Result;
using kscope::Status;
namespace sql = kscope::sql;

// The GPU activity tables copied with their launches; not every export has all of them.
constexpr const char* kGpuTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                      "CUPTI_ACTIVITY_KIND_MEMSET"};
constexpr const char* kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr const char* kNvtx = "NVTX_EVENTS";

struct Range {
  int64_t start = 0, end = 0;
};

Result<int64_t> Scalar(sql::Db& db, const std::string& query) {
  auto s = db.Prepare(query);
  if (!s.ok()) return s.error();
  int64_t v = s->Step() && !s->IsNull(0) ? s->Int(0) : 0;
  if (!s->status().ok()) return s->status().error();
  return v;
}

Result<Range> FindRange(sql::Db& db, const std::string& name) {
  auto s = db.Prepare(
      "SELECT start, end FROM NVTX_EVENTS WHERE end IS NOT NULL AND eventType IN (59, 60) AND "
      "(text = ?1 OR textId IN (SELECT id FROM StringIds WHERE value = ?1)) ORDER BY start LIMIT 1");
  if (!s.ok()) return s.error();
  s->Bind(1, name);
  if (!s->Step()) return Error{db.path(), "no NVTX range named '" + name + "'", "pick one with --range"};
  return Range{s->Int(0), s->Int(1)};
}

// The column list of `table`, and the same columns with times shifted by ?1 and
// correlation ids by ?2: what INSERT ... SELECT copies.
Result<std::pair<std::string, std::string>> CopyColumns(sql::Db& db, const std::string& table) {
  auto s = db.Prepare("SELECT name FROM pragma_table_info(?1)");
  if (!s.ok()) return s.error();
  s->Bind(1, table);
  std::string cols, exprs;
  while (s->Step()) {
    const std::string name = s->Text(0), quoted = "\"" + name + "\"";
    if (!cols.empty()) cols += ", ", exprs += ", ";
    cols += quoted;
    if (name == "start" || name == "end") {
      exprs += quoted + " + ?1";
    } else if (name == "correlationId") {
      exprs += quoted + " + ?2";
    } else {
      exprs += quoted;
    }
  }
  return std::pair{cols, exprs};
}

// Copies of the template rows tmpl_<table>, once per copy c = 1..copies.
Status AppendCopies(sql::Db& db, const std::string& table, int64_t copies, int64_t first_shift, int64_t shift,
                    int64_t id_stride) {
  auto cols = CopyColumns(db, table);
  if (!cols.ok()) return cols.error();
  auto insert = db.Prepare("INSERT INTO \"" + table + "\" (" + cols->first + ") SELECT " + cols->second +
                           " FROM temp.\"tmpl_" + table + "\" ORDER BY rowid");
  if (!insert.ok()) return insert.error();
  for (int64_t c = 1; c <= copies; ++c) {
    insert->Bind(1, first_shift + (c - 1) * shift).Bind(2, c * id_stride);
    KSCOPE_RETURN_IF_ERROR(insert->Run());
  }
  return Status::Ok();
}

// Template rows: what lies in the range, in temp tables so the copies never read their own output.
Status MakeTemplates(sql::Db& db, const Range& r, std::vector<std::string>& tables) {
  const std::string in_range = " WHERE start >= " + std::to_string(r.start) + " AND start < " + std::to_string(r.end);
  KSCOPE_RETURN_IF_ERROR(db.Exec("CREATE TEMP TABLE \"tmpl_" + std::string(kRuntime) + "\" AS SELECT * FROM " +
                                 kRuntime + in_range + " ORDER BY rowid"));
  KSCOPE_RETURN_IF_ERROR(
      db.Exec("CREATE TEMP TABLE launch (corr INTEGER, pid INTEGER, PRIMARY KEY (corr, pid)) "
              "WITHOUT ROWID; INSERT OR IGNORE INTO launch SELECT correlationId, "
              "(globalTid >> 24) << 24 FROM temp.\"tmpl_" +
              std::string(kRuntime) + "\" WHERE correlationId IS NOT NULL"));
  KSCOPE_RETURN_IF_ERROR(db.Exec("CREATE TEMP TABLE \"tmpl_" + std::string(kNvtx) + "\" AS SELECT * FROM " + kNvtx +
                                 in_range + " ORDER BY rowid"));
  tables = {kRuntime, kNvtx};
  for (const char* t : kGpuTables) {
    if (!db.TableExists(t)) continue;
    KSCOPE_RETURN_IF_ERROR(db.Exec(std::string("CREATE TEMP TABLE \"tmpl_") + t + "\" AS SELECT g.* FROM " + t +
                                   " g JOIN launch l ON l.corr = g.correlationId AND l.pid = g.globalPid "
                                   "ORDER BY g.rowid"));
    tables.emplace_back(t);
  }
  return Status::Ok();
}

// The largest `column` over the runtime, NVTX and GPU activity tables.
std::string MaxQuery(sql::Db& db, const std::string& column) {
  std::string q = "SELECT max(m) FROM (SELECT max(" + column + ") m FROM " + kRuntime;
  if (column == "end") q += std::string(" UNION ALL SELECT max(end) FROM ") + kNvtx;
  for (const char* t : kGpuTables) {
    if (db.TableExists(t)) q += " UNION ALL SELECT max(" + column + ") FROM " + t;
  }
  return q + ")";
}

Status Scale(const std::string& out, int64_t want_kernels, const std::string& range_name) {
  auto db = sql::Db::Open(out, sql::OpenMode::kReadWrite);
  if (!db.ok()) return db.error();
  KSCOPE_RETURN_IF_ERROR(db->Exec("PRAGMA temp_store=MEMORY; PRAGMA synchronous=OFF; PRAGMA cache_size=-262144;"));
  auto range = FindRange(*db, range_name);
  if (!range.ok()) return range.error();
  auto max_corr = Scalar(*db, MaxQuery(*db, "correlationId"));
  auto trace_end = Scalar(*db, MaxQuery(*db, "end"));
  if (!trace_end.ok()) return trace_end.error();
  auto base = Scalar(*db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  if (!max_corr.ok() || !base.ok()) return max_corr.ok() ? base.error() : max_corr.error();
  auto tx = sql::Transaction::Begin(*db);
  if (!tx.ok()) return tx.error();
  std::vector<std::string> tables;
  KSCOPE_RETURN_IF_ERROR(MakeTemplates(*db, *range, tables));
  auto per_copy = Scalar(*db, "SELECT count(*) FROM temp.tmpl_CUPTI_ACTIVITY_KIND_KERNEL");
  if (!per_copy.ok()) return per_copy.error();
  if (*per_copy == 0) return Error{out, "the range '" + range_name + "' launches no kernels", ""};
  const int64_t copies = want_kernels > *base ? (want_kernels - *base + *per_copy - 1) / *per_copy : 0;
  const int64_t length = range->end - range->start;
  const int64_t first_shift = std::max(length, *trace_end - range->start);
  for (const auto& t : tables) {
    KSCOPE_RETURN_IF_ERROR(AppendCopies(*db, t, copies, first_shift, length, *max_corr + 1));
  }
  // The export's own span ends after the last copy, as a longer capture's would (kscope skips
  // events after it).
  auto new_end = Scalar(*db, MaxQuery(*db, "end"));
  if (!new_end.ok()) return new_end.error();
  if (db->TableExists("ANALYSIS_DETAILS")) {
    auto span = db->Prepare(
        "UPDATE ANALYSIS_DETAILS SET stopTime = max(stopTime, ?1), duration = max(stopTime, ?1) - startTime");
    if (!span.ok()) return span.error();
    KSCOPE_RETURN_IF_ERROR(span->Bind(1, *new_end).Run());
  }
  KSCOPE_RETURN_IF_ERROR(tx->Commit());
  std::printf("range '%s': %.3f s, %lld kernels each; %lld copies appended\n", range_name.c_str(),
              static_cast<double>(range->end - range->start) / 1e9, static_cast<long long>(*per_copy),
              static_cast<long long>(copies));
  return Status::Ok();
}

void PrintCounts(const std::string& out) {
  auto db = sql::Db::Open(out, sql::OpenMode::kReadOnly);
  if (!db.ok()) return;
  const std::pair<const char*, std::string> counts[] = {
      {"kernels", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"},
      {"API calls", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"},
      {"NVTX ranges", "SELECT count(*) FROM NVTX_EVENTS WHERE end IS NOT NULL"},
      {"memcpys", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"},
      {"memsets", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"},
  };
  for (const auto& [what, q] : counts) {
    auto n = Scalar(*db, q);
    if (n.ok()) std::printf("%-12s %lld\n", what, static_cast<long long>(*n));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> pos;
  int64_t kernels = 400000;
  std::string range = "decode";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--kernels" && i + 1 < argc) {
      kernels = std::stoll(argv[++i]);
    } else if (a == "--range" && i + 1 < argc) {
      range = argv[++i];
    } else {
      pos.push_back(a);
    }
  }
  if (pos.size() != 2) {
    std::fprintf(stderr, "usage: make_scaled_export IN.sqlite OUT.sqlite [--kernels N] [--range NAME]\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  std::filesystem::copy_file(pos[0], pos[1], std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) {
    std::fprintf(stderr, "make_scaled_export: %s: %s\n", pos[0].c_str(), ec.message().c_str());
    return 1;
  }
  if (Status st = Scale(pos[1], kernels, range); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.error().Line().c_str());
    std::filesystem::remove(pos[1], ec);
    return 1;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  PrintCounts(pos[1]);
  std::printf("%-12s %.1f MiB (%s)\n%-12s %.2f\n", "file size",
              static_cast<double>(std::filesystem::file_size(pos[1])) / (1 << 20), pos[1].c_str(), "seconds", secs);
  return 0;
}
