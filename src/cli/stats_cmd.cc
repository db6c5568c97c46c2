// kscope stats --report R RUN|FILE: nsys's stats reports from the store, or straight from
// an export (imported into a temporary in-memory store).
#include <charconv>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "import/import_files.h"
#include "import/store_upgrade.h"
#include "report/nsys_stats.h"

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

int RunStats(const StatsArgs& a, const GlobalOptions& global) {
  const report::Format format = a.format == "csv"    ? report::Format::kCsv
                                : a.format == "json" ? report::Format::kJson
                                                     : report::Format::kTable;
  std::optional<int64_t> run_id = std::filesystem::exists(a.target) ? std::nullopt : AsRunId(a.target);
  Result<store::Store> store = run_id ? import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly)
                                      : store::Store::Open(":memory:", sql::OpenMode::kCreate);
  if (!store.ok()) return Fail(store.error());
  if (!run_id) {
    auto outcomes = import::ImportFiles(*store, {a.target}, {});
    if (!outcomes.ok()) return Fail(outcomes.error());
    run_id = outcomes->front().run_id;
  }
  bool first = true;
  for (const auto& r : a.reports) {
    auto table = report::BuildNsysReport(*store, *run_id, r);
    if (!table.ok()) return Fail(table.error());
    if (!first && format == report::Format::kTable) std::cout << "\n";
    first = false;
    report::Write(*table, format, std::cout);
  }
  return 0;
}
}  // namespace

void RegisterStats(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto args = std::make_shared<StatsArgs>();
  CLI::App* cmd = app.add_subcommand("stats", "nsys's stats reports, computed from a run or an export");
  cmd->add_option("target", args->target, "a run id from the database, or an nsys SQLite export")->required();
  std::vector<std::string> names;
  for (auto n : report::NsysReportNames()) names.emplace_back(n);
  cmd->add_option("--report,-r", args->reports, "report name (repeatable)")->required()->check(CLI::IsMember(names));
  cmd->add_option("--format,-f", args->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback([args, &global, &exit_code] { exit_code = RunStats(*args, global); });
}

}  // namespace kscope::cli
