// kscope runs: the runs in the database with their manifests.
#include <iostream>

#include "cli/commands.h"
#include "report/table.h"
#include "store/store.h"

namespace kscope::cli {

void RegisterRuns(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto format = std::make_shared<std::string>("table");
  CLI::App* cmd = app.add_subcommand("runs", "List the runs in the database");
  cmd->add_option("--format,-f", *format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback([format, &global, &exit_code] {
    auto store = store::Store::Open(global.DbPath(), sql::OpenMode::kReadOnly);
    if (!store.ok()) {
      exit_code = Fail(store.error());
      return;
    }
    auto runs = store->ListRuns();
    if (!runs.ok()) {
      exit_code = Fail(runs.error());
      return;
    }
    report::Table t;
    t.columns = {"Run", "Imported", "Label", "GPU", "Driver", "CUDA", "nsys", "Kernels", "API calls", "Command"};
    auto opt = [](const std::optional<std::string>& s) { return s ? report::Cell{*s} : report::Cell{}; };
    for (const auto& r : *runs) {
      t.rows.push_back({r.id, r.imported_at, opt(r.manifest.label), opt(r.manifest.gpu), opt(r.manifest.driver),
                        opt(r.manifest.cuda_version), opt(r.manifest.nsys_version), r.kernels, r.api_calls,
                        opt(r.manifest.command)});
    }
    report::Write(t,
                  *format == "csv"    ? report::Format::kCsv
                  : *format == "json" ? report::Format::kJson
                                      : report::Format::kTable,
                  std::cout);
  });
}

}  // namespace kscope::cli
