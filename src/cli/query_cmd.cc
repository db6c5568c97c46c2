// kscope query "SQL": one read-only statement over the store's views (docs/query.md).
#include <iostream>

#include "cli/commands.h"
#include "import/store_upgrade.h"
#include "report/query_table.h"
#include "report/table.h"
#include "store/store.h"

namespace kscope::cli {

void RegisterQuery(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto sql = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  CLI::App* cmd = app.add_subcommand("query", "Run one read-only SQL statement over the store (views: docs/query.md)");
  cmd->add_option("sql", *sql, "the statement, e.g. \"SELECT * FROM v_runs\"")->required();
  cmd->add_option("--format,-f", *format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback([sql, format, &global, &exit_code] {
    auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
    if (!store.ok()) {
      exit_code = Fail(store.error());
      return;
    }
    auto table = report::QueryTable(store->db(), *sql);
    if (!table.ok()) {
      exit_code = Fail(table.error());
      return;
    }
    report::Write(*table,
                  *format == "csv"    ? report::Format::kCsv
                  : *format == "json" ? report::Format::kJson
                                      : report::Format::kTable,
                  std::cout);
  });
}

}  // namespace kscope::cli
