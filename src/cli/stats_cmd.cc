// kscope stats --report R RUN|FILE: nsys's stats reports from the store, or straight from
// an export. A report whose data the export lacks is skipped as nsys skips it: its SKIPPED
// sentence on standard error, nothing on standard output, exit 0.
#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "import/import_files.h"
#include "import/nsys/export_schema.h"
#include "import/store_upgrade.h"
#include "report/nsys_report_catalog.h"
#include "report/nsys_stats.h"
#include "report/nsys_trace.h"
#include "util/file_hash.h"
#include "util/sqlite_file.h"

namespace kscope::cli {

namespace {
struct StatsArgs {
  std::string target;
  std::vector<std::string> reports;
  std::string format = "table";
};

std::optional<int64_t> AsRunId(const std::string& s) {
  int64_t id = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), id);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return id;
}

Result<sql::Db> OpenExport(const std::string& path) {
  KSCOPE_RETURN_IF_ERROR(CheckSqliteFile(path));
  auto db = sql::Db::Open(path, sql::OpenMode::kReadOnly);
  if (!db.ok()) return Error{path, "cannot open as an SQLite database", "check that it is an nsys SQLite export"};
  auto schema = import::nsys::DetectExportSchema(*db, path);
  if (!schema.ok()) return schema.error();
  return db;
}

// The export a stored run came from, for the trace reports: there, unchanged since the import.
Result<sql::Db> OpenRunExport(store::Store& store, int64_t run_id, const std::string& path) {
  const std::string fix =
      "the trace reports read every event from the export; pass the export itself: "
      "kscope stats --report R FILE.sqlite";
  if (!std::filesystem::exists(path)) return Error{path, fmt::format("run {}'s nsys export is not there", run_id), fix};
  auto q = store.db().Prepare(
      "SELECT content_hash FROM source_file WHERE run_id = ?1 AND path = ?2 AND content_hash IS NOT NULL");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id).Bind(2, path);
  if (q->Step()) {
    auto hash = FileContentHash(path);
    if (!hash.ok()) return hash.error();
    if (*hash != q->Text(0)) {
      return Error{path, fmt::format("changed since it was imported as run {}", run_id), fix};
    }
  }
  return OpenExport(path);
}

// Where the reports come from: a stored run, or an export file (its summaries from an
// in-memory import, made only if a summary report needs it).
struct Source {
  std::optional<store::Store> store;
  int64_t run_id = 0;
  std::string file;                  // the export's path, as SKIPPED sentences name it
  std::vector<std::string> exports;  // a stored run's nsys exports
  std::optional<sql::Db> export_db;
  report::NsysDataPresent present;
};

Status OpenSource(const StatsArgs& a, const GlobalOptions& global, Source& src) {
  std::optional<int64_t> run_id = std::filesystem::exists(a.target) ? std::nullopt
                                  : a.target == "last"              ? std::optional<int64_t>(kLastRun)
                                                                    : AsRunId(a.target);
  if (run_id) {
    auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
    if (!store.ok()) return store.error();
    auto resolved = ResolveRun(*store, *run_id);
    if (!resolved.ok()) return resolved.error();
    run_id = *resolved;
    src.store = std::move(*store);
    src.run_id = *run_id;
    auto present = report::DataInRun(*src.store, *run_id);
    if (!present.ok()) return present.error();
    src.present = *present;
    auto paths = report::RunExportPaths(*src.store, *run_id);
    if (!paths.ok()) return paths.error();
    src.exports = *paths;
    src.file = src.exports.empty() ? fmt::format("run {}", *run_id) : src.exports.front();
    return Status::Ok();
  }
  src.file = a.target;
  auto db = OpenExport(a.target);
  if (!db.ok()) return db.error();
  src.export_db = std::move(*db);
  auto present = report::DataInExport(*src.export_db);
  if (!present.ok()) return present.error();
  src.present = *present;
  return Status::Ok();
}

Status EnsureImported(Source& src) {
  if (src.store) return Status::Ok();
  auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  if (!store.ok()) return store.error();
  src.store = std::move(*store);
  import::ImportOptions options;
  options.allow_no_kernels = true;  // the NVTX and API summaries need no kernels
  auto outcomes = import::ImportFiles(*src.store, {src.file}, options);
  if (!outcomes.ok()) return outcomes.error();
  src.run_id = outcomes->front().run_id;
  return Status::Ok();
}

Status EnsureExport(Source& src) {
  if (src.export_db) return Status::Ok();
  if (src.exports.size() != 1) {
    return Error{"",
                 fmt::format("run {} holds {} nsys exports; a trace report lists the events of one", src.run_id,
                             src.exports.size()),
                 "pass the export itself: kscope stats --report R FILE.sqlite"};
  }
  auto db = OpenRunExport(*src.store, src.run_id, src.file);
  if (!db.ok()) return db.error();
  src.export_db = std::move(*db);
  return Status::Ok();
}

Status WriteTrace(Source& src, const report::NsysReportSpec& spec, report::Format format) {
  KSCOPE_RETURN_IF_ERROR(EnsureExport(src));
  if (format == report::Format::kCsv) return report::StreamNsysTrace(*src.export_db, spec, *report::CsvSink(std::cout));
  if (format == report::Format::kJson) {
    return report::StreamNsysTrace(*src.export_db, spec, *report::JsonSink(std::cout));
  }
  // An aligned table needs every column's width first: one pass to measure, one to write.
  report::TextLayoutSink layout;
  KSCOPE_RETURN_IF_ERROR(report::StreamNsysTrace(*src.export_db, spec, layout));
  return report::StreamNsysTrace(*src.export_db, spec, *report::TextSink(std::cout, layout.layout()));
}

int RunStats(const StatsArgs& a, const GlobalOptions& global) {
  const report::Format format = a.format == "csv"    ? report::Format::kCsv
                                : a.format == "json" ? report::Format::kJson
                                                     : report::Format::kTable;
  // As nsys takes them: repeated, or comma-separated, a blank item repeating the report before
  // it; none at all, nsys's default set (those of it kscope has, in its order).
  std::vector<const report::NsysReportSpec*> specs;
  for (const auto& arg : a.reports) {
    size_t from = 0;
    for (;;) {
      const size_t comma = arg.find(',', from);
      const std::string name = arg.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      const auto* spec = name.empty() && !specs.empty() ? specs.back() : report::FindNsysReport(name);
      if (spec == nullptr) return Fail(report::UnknownNsysReport(name));
      specs.push_back(spec);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  if (a.reports.empty()) {
    for (const char* name :
         {"nvtx_sum", "cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum"}) {
      specs.push_back(report::FindNsysReport(name));
    }
  }
  Source src;
  if (auto st = OpenSource(a, global, src); !st.ok()) return Fail(st.error());
  bool first = true;
  for (const auto* spec : specs) {
    if (auto skip = report::NsysSkipReason(*spec, src.present, src.file)) {
      std::cout.flush();
      std::cerr << "SKIPPED: " << *skip << "\n";
      continue;
    }
    if (!first && format == report::Format::kTable) std::cout << "\n";
    first = false;
    if (spec->kind == report::NsysReportKind::kTrace) {
      if (auto st = WriteTrace(src, *spec, format); !st.ok()) return Fail(st.error());
      continue;
    }
    if (auto st = EnsureImported(src); !st.ok()) return Fail(st.error());
    auto table = report::BuildNsysReport(*src.store, src.run_id, spec->name);
    if (!table.ok()) return Fail(table.error());
    report::Write(*table, format, std::cout);
  }
  return 0;
}
}  // namespace

void RegisterStats(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto args = std::make_shared<StatsArgs>();
  CLI::App* cmd = app.add_subcommand("stats", "nsys's stats reports, computed from a run or an export");
  cmd->add_option("target", args->target, "a run id from the database (or last, the newest), or an nsys SQLite export")
      ->required();
  std::string names;
  for (const auto& r : report::NsysReports()) {
    names += (names.empty() ? "" : ", ") + std::string(r.name);
    if (!r.old_name.empty()) names += " (" + std::string(r.old_name) + ")";
  }
  cmd->add_option("--report,-r", args->reports,
                  "report name, repeatable or comma-separated (default: nsys's default set, those of it kscope "
                  "has): " +
                      names);
  cmd->add_option("--format,-f", args->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback([args, &global, &exit_code] { exit_code = RunStats(*args, global); });
}

}  // namespace kscope::cli
