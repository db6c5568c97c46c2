// kscope runs: the runs in the database with their manifests.
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "import/store_upgrade.h"
#include "report/table.h"
#include "store/store.h"

namespace kscope::cli {

void RegisterRuns(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto format = std::make_shared<std::string>("table");
  CLI::App* cmd = app.add_subcommand("runs", "List the runs in the database");
  cmd->add_option("--format,-f", *format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback([format, &global, &exit_code] {
    auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
    if (!store.ok()) {
      exit_code = Fail(store.error());
      return;
    }
    auto runs = store->ListRuns();
    if (!runs.ok()) {
      exit_code = Fail(runs.error());
      return;
    }
    // Rows each run's import skipped (each in import_problem).
    std::map<int64_t, int64_t> bad_rows;
    auto bad = store->db().Prepare("SELECT run_id, sum(rows_skipped) FROM source_file GROUP BY run_id");
    if (!bad.ok()) {
      exit_code = Fail(bad.error());
      return;
    }
    while (bad->Step()) bad_rows[bad->Int(0)] = bad->Int(1);
    if (!bad->status().ok()) {
      exit_code = Fail(bad->status().error());
      return;
    }
    report::Table t;
    t.title = "runs";
    // nsys: the version its export records, and what its --version printed (kscope profile).
    t.columns = {"Run",  "Imported",    "Label",     "Model",   "Dtype",     "Batch",    "Tokens",  "GPU", "Driver",
                 "CUDA", "nsys export", "nsys tool", "Kernels", "API calls", "Bad rows", "Command", "Tags"};
    auto text = [](const std::optional<std::string>& s) { return s ? report::Cell{*s} : report::Cell{}; };
    auto number = [](const std::optional<int64_t>& v) { return v ? report::Cell{*v} : report::Cell{}; };
    for (const auto& r : *runs) {
      std::string tags;
      for (const auto& [k, v] : r.manifest.tags) {
        if (!tags.empty()) tags += ' ';
        tags.append(k).append("=").append(v);
      }
      t.rows.push_back({r.id, r.imported_at, text(r.manifest.label), text(r.manifest.model), text(r.manifest.dtype),
                        number(r.manifest.batch), number(r.manifest.tokens), text(r.manifest.gpu),
                        text(r.manifest.driver), text(r.manifest.cuda_version), text(r.manifest.nsys_export_version),
                        text(r.manifest.nsys_tool_version), r.kernels, r.api_calls, bad_rows[r.id],
                        text(r.manifest.command), tags});
    }
    report::Write(t,
                  *format == "csv"    ? report::Format::kCsv
                  : *format == "json" ? report::Format::kJson
                                      : report::Format::kTable,
                  std::cout);
  });
}

}  // namespace kscope::cli
