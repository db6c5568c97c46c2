// make_atlas_store IN.db OUT.db [--runs N] [--families F] [--models M]
//
// Builds a large store for the atlas benchmarks from a store of real runs (IN: the zoo's
// exports and ncu pages imported, one run per model): OUT is a copy of IN plus copies of its
// runs until it holds N runs (default 1,000). Copy c of run r is r's rows in every per-run
// table the atlas and diff read (run, kernel and API summaries, NVTX summaries, ncu launches,
// metrics and rules), with:
//   - its model named "<model> #<c mod M>" (default M = 16), so the store holds many models;
//   - a long tail of families, as compiled models make them: in copy c, K of the run's kernel
//     names (kernel_summary, and ncu launches spelled the same) are renamed to Triton-style
//     names of their own ("triton_poi_fused_atlas_r<r>_v<c mod V>_<k>_0"), V chosen so that
//     the store holds about F families (default 2,000).
// The event streams (event_chunk) are not copied: the atlas does not read them, and renamed
// summaries would not match them. Each copy's per-launch figures (ncu_launch_figures) are not
// copied either: they are derived from its copied metrics by the import's own code
// (analysis::MaterializeLaunchFigures), as `kscope import` derives them. The copies' numbers
// mean nothing; their shape is real. One transaction per 100 copies, so that the write-ahead
// log is checkpointed as the store grows (a 10,000-run store is about 11 GB); foreign keys are
// not checked, the copies being made of rows that satisfy them.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernels/launch_figures.h"
#include "store/store.h"
#include "util/sqlite.h"

namespace {

using kscope::Error;
using kscope::Result;
using kscope::Status;
namespace sql = kscope::sql;

// The per-run tables copied, each with the columns that hold kernel name ids.
struct PerRun {
  const char* table;
  const char* name_column;  // "" when none is renamed
};
constexpr PerRun kTables[] = {{"kernel_summary", "name_id"},
                              {"api_summary", ""},
                              {"memop_summary", ""},
                              {"nvtx_summary", ""},
                              {"nvtx_kernel_summary", "kernel_name_id"},
                              {"nvtx_projection_summary", ""},
                              {"thread_name", ""},
                              {"ncu_launch", "name_id"},
                              {"ncu_metric", ""},
                              {"ncu_rule", ""}};
constexpr int64_t kRenamedPerCopy = 5;

Result<int64_t> Scalar(sql::Db& db, const std::string& query) {
  auto s = db.Prepare(query);
  if (!s.ok()) return s.error();
  const int64_t v = s->Step() && !s->IsNull(0) ? s->Int(0) : 0;
  if (!s->status().ok()) return s->status().error();
  return v;
}

Result<std::vector<std::string>> Columns(sql::Db& db, const std::string& table) {
  auto s = db.Prepare("SELECT name FROM pragma_table_info(?1)");
  if (!s.ok()) return s.error();
  s->Bind(1, table);
  std::vector<std::string> cols;
  while (s->Step()) cols.push_back(s->Text(0));
  if (!s->status().ok()) return s->status().error();
  return cols;
}

Status Exec(sql::Db& db, const std::string& query) {
  auto s = db.Prepare(query);
  if (!s.ok()) return s.error();
  return s->Run();
}

// One copy of run `src` as run `dst`: its names in `rename` mapped (temp table name_map).
Status CopyRun(sql::Db& db, int64_t src, int64_t dst, const std::string& model) {
  auto run = db.Prepare(
      "INSERT INTO run (id, imported_at, label, model, dtype, batch, tokens, gpu, driver, cuda_version, "
      "nsys_export_version, nsys_tool_version, ncu_version, command, tags, status, capture) "
      "SELECT ?2, imported_at, label, ?3, dtype, batch, tokens, gpu, driver, cuda_version, nsys_export_version, "
      "nsys_tool_version, ncu_version, command, tags, status, capture FROM run WHERE id = ?1");
  if (!run.ok()) return run.error();
  run->Bind(1, src).Bind(2, dst).Bind(3, model);
  KSCOPE_RETURN_IF_ERROR(run->Run());
  for (const auto& t : kTables) {
    auto cols = Columns(db, t.table);
    if (!cols.ok()) return cols.error();
    std::string names, values;
    for (const auto& c : *cols) {
      names += (names.empty() ? "" : ", ") + c;
      std::string v = c;
      if (c == "run_id") {
        v = std::to_string(dst);
      } else if (c == t.name_column) {
        v = "coalesce((SELECT new FROM name_map WHERE old = " + c + "), " + c + ")";
      }
      values += (values.empty() ? "" : ", ") + v;
    }
    KSCOPE_RETURN_IF_ERROR(Exec(db, "INSERT INTO " + std::string(t.table) + " (" + names + ") SELECT " + values +
                                        " FROM " + t.table + " WHERE run_id = " + std::to_string(src)));
  }
  return Status::Ok();
}

// name_map for copy variant `v` of run `src`: K of its nsys kernel names to K new names (ncu
// launches of the same string, as Triton's and other unmangled kernels are, follow them).
Status MapNames(sql::Db& db, int64_t src, int64_t v) {
  KSCOPE_RETURN_IF_ERROR(Exec(db, "DELETE FROM name_map"));
  {
    auto q = db.Prepare(
        "SELECT name_id FROM kernel_summary WHERE run_id = ?1 ORDER BY (name_id * 7919 + ?2 * 104729) % 1000003 "
        "LIMIT ?3");
    if (!q.ok()) return q.error();
    q->Bind(1, src).Bind(2, v).Bind(3, kRenamedPerCopy);
    std::vector<int64_t> ids;
    while (q->Step()) ids.push_back(q->Int(0));
    if (!q->status().ok()) return q->status().error();
    for (size_t k = 0; k < ids.size(); ++k) {
      const std::string name =
          "triton_poi_fused_atlas_r" + std::to_string(src) + "_v" + std::to_string(v) + "_" + std::to_string(k) + "_0";
      auto ins = db.Prepare("INSERT OR IGNORE INTO string (value) VALUES (?1)");
      if (!ins.ok()) return ins.error();
      ins->Bind(1, name);
      KSCOPE_RETURN_IF_ERROR(ins->Run());
      auto map = db.Prepare("INSERT OR REPLACE INTO name_map SELECT ?1, id FROM string WHERE value = ?2");
      if (!map.ok()) return map.error();
      map->Bind(1, ids[k]).Bind(2, name);
      KSCOPE_RETURN_IF_ERROR(map->Run());
    }
  }
  return Status::Ok();
}

int Usage() {
  std::fprintf(stderr, "usage: make_atlas_store IN.db OUT.db [--runs N] [--families F] [--models M]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Usage();
  const std::string in = argv[1], out = argv[2];
  int64_t runs = 1000, families = 2000, models = 16;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int64_t v = std::stoll(argv[i + 1]);
    if (flag == "--runs") {
      runs = v;
    } else if (flag == "--families") {
      families = v;
    } else if (flag == "--models") {
      models = v;
    } else {
      return Usage();
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  std::filesystem::copy_file(in, out, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) {
    std::fprintf(stderr, "make_atlas_store: %s: %s\n", out.c_str(), ec.message().c_str());
    return 1;
  }
  auto store = kscope::store::Store::Open(out, sql::OpenMode::kReadWrite);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.error().Line().c_str());
    return 1;
  }
  sql::Db* db = &store->db();
  auto fail = [](const Error& e) {
    std::fprintf(stderr, "%s\n", e.Line().c_str());
    return 1;
  };
  if (auto st = Exec(*db, "CREATE TEMP TABLE name_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)"); !st.ok())
    return fail(st.error());
  if (auto st = Exec(*db, "PRAGMA foreign_keys=OFF"); !st.ok()) return fail(st.error());
  std::optional<sql::Transaction> tx;
  auto begin = [&]() -> Status {
    auto t = sql::Transaction::Begin(*db);
    if (!t.ok()) return t.error();
    tx.emplace(std::move(t).value());
    return Status::Ok();
  };
  if (auto st = begin(); !st.ok()) return fail(st.error());
  std::vector<std::pair<int64_t, std::string>> sources;
  {
    auto q = db->Prepare("SELECT id, coalesce(model, label, 'run ' || id) FROM run ORDER BY id");
    if (!q.ok()) return fail(q.error());
    while (q->Step()) sources.emplace_back(q->Int(0), q->Text(1));
  }
  if (sources.empty()) return fail(Error{in, "holds no run", "import the zoo's exports first"});
  const auto n = static_cast<int64_t>(sources.size());
  const int64_t variants = std::max<int64_t>(1, families / (n * kRenamedPerCopy));
  auto next = Scalar(*db, "SELECT max(id) + 1 FROM run");
  if (!next.ok()) return fail(next.error());
  int64_t dst = *next;
  for (int64_t i = 0; n + i < runs; ++i, ++dst) {
    const auto& [src, model] = sources[static_cast<size_t>(i % n)];
    const int64_t copy = i / n;
    if (auto st = MapNames(*db, src, copy % variants); !st.ok()) return fail(st.error());
    if (auto st = CopyRun(*db, src, dst, model + " #" + std::to_string(copy % models)); !st.ok())
      return fail(st.error());
    if (auto st = kscope::analysis::MaterializeLaunchFigures(*store, dst); !st.ok()) return fail(st.error());
    if ((i + 1) % 100 == 0) {
      if (auto st = tx->Commit(); !st.ok()) return fail(st.error());
      if (auto st = begin(); !st.ok()) return fail(st.error());
    }
  }
  if (auto st = tx->Commit(); !st.ok()) return fail(st.error());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: %lld runs (%lld real, copied), %lld name variants per run, %.1f s\n", out.c_str(),
              static_cast<long long>(std::max(runs, n)), static_cast<long long>(n), static_cast<long long>(variants),
              secs);
  return 0;
}
