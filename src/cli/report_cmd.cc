// kscope report RUN: the run's report on the terminal, and report.json, report.md and
// report.html in a folder (report/run_report.h, report/report_files.h).
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "config/config.h"
#include "import/store_upgrade.h"
#include "report/report_files.h"
#include "report/report_text.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "util/own_dir.h"

namespace kscope::cli {

namespace fs = std::filesystem;

namespace {

struct ReportArgs {
  int64_t run = 0;
  std::optional<int64_t> rank;
  std::string out;
  bool quiet = false;
  std::string format;  // json: report.json's text on stdout, no files
};

// Where the files go: --out (as the user names it), else the run's own directory (kscope
// profile's, when it is still there and the user's), else ./kscope-report-RUN. A folder kscope
// picks itself is made or checked by MakeOwnDir: never a link, never another user's.
Result<fs::path> OutDir(store::Store& store, const ReportArgs& a) {
  if (!a.out.empty()) {
    std::error_code ec;
    fs::create_directories(a.out, ec);
    if (ec) return Error{a.out, "cannot create the report folder: " + ec.message(), "choose --out DIR"};
    return fs::path(a.out);
  }
  if (auto capture = store.RunCapture(a.run); capture.ok() && !capture->empty()) {
    const auto m = nlohmann::json::parse(*capture, nullptr, false);
    if (m.is_object() && m.contains("run_dir") && m["run_dir"].is_string()) {
      const fs::path run_dir = m["run_dir"].get<std::string>();
      std::error_code ec;
      if (fs::is_directory(run_dir, ec) && MakeOwnDir(run_dir, "").ok()) return run_dir;
    }
  }
  const fs::path dir = "kscope-report-" + std::to_string(a.run);
  KSCOPE_RETURN_IF_ERROR(MakeOwnDir(dir, "pass --out DIR"));
  return dir;
}

int Run(ReportArgs a, const GlobalOptions& global) {
  auto cfg = config::LoadConfig(global.config, global.overrides);
  if (!cfg.ok()) return Fail(cfg.error());
  auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.error());
  auto run = ResolveRun(*store, a.run);
  if (!run.ok()) return Fail(run.error());
  a.run = *run;
  if (a.format == "json" && !a.out.empty()) {
    return Fail(Error{"", "--format json prints report.json and writes no files, and --out names a folder for them",
                      "leave one out"});
  }
  auto report = report::BuildRunReport(*store, a.run, *cfg, a.rank);
  if (!report.ok()) return Fail(report.error());
  if (a.format == "json") {
    std::cout << report::ReportJsonText(*report);
    return 0;
  }
  const auto dir = OutDir(*store, a);
  if (!dir.ok()) return Fail(dir.error());
  const std::vector<report::ReportFile> files = report::WriteReportFiles(*report, *dir);
  if (!a.quiet) report::WriteReportSummary(*report, std::cout);
  std::string wrote;
  for (const report::ReportFile& f : files) {
    if (f.status.ok()) wrote += (wrote.empty() ? "" : ", ") + f.path.string();
  }
  if (!wrote.empty()) std::cout << "\nwrote " << wrote << "\n";
  int exit_code = 0;
  for (const report::ReportFile& f : files) {
    if (!f.status.ok()) exit_code = Fail(f.status.error());
  }
  return exit_code;
}

}  // namespace

void RegisterReport(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand("report", "Report a run: terminal summary, report.md, report.json, report.html");
  AddRunOption(cmd, "run", args->run, "run id")->required();
  cmd->add_option("--rank", args->rank, "one rank of a multi-GPU job: every figure from its process alone");
  cmd->add_option("--out,-o", args->out,
                  "folder for the files (default: the run's directory, else ./kscope-report-RUN)");
  cmd->add_flag("--quiet", args->quiet, "write the files only, no summary on the terminal");
  cmd->add_option("--format,-f", args->format, "json: print report.json on stdout and write no files")
      ->check(CLI::IsMember({"json"}));
  cmd->callback([args, &global, &exit_code] { exit_code = Run(*args, global); });
}

}  // namespace kscope::cli
