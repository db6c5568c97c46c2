// kscope kernels RUN and kscope kernel RUN NAME|ID: the profiled kernels of a run (ncu data),
// and one kernel with all its evidence and advice.
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "config/config.h"
#include "import/store_upgrade.h"
#include "report/all_kernels.h"
#include "report/kernel_reports.h"

namespace kscope::cli {

namespace {

struct KernelsArgs {
  int64_t run = 0;
  std::string which, format = "table";
  bool all = false, full_names = false;
  std::optional<int64_t> rank;
};

report::Format ParseFormat(const std::string& f) {
  return f == "csv" ? report::Format::kCsv : f == "json" ? report::Format::kJson : report::Format::kTable;
}

void WriteTables(const std::vector<report::Table>& tables, report::Format format) {
  if (format == report::Format::kJson) {  // one JSON document: an array of the tables
    std::cout << "[";
    for (size_t i = 0; i < tables.size(); ++i) {
      std::ostringstream one;
      report::WriteJson(tables[i], one);
      std::string text = one.str();
      while (!text.empty() && text.back() == '\n') text.pop_back();
      std::cout << (i > 0 ? ",\n" : "") << text;
    }
    std::cout << "]\n";
    return;
  }
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i > 0) std::cout << "\n";
    report::Write(tables[i], format, std::cout);
  }
}

int Run(KernelsArgs a, const GlobalOptions& global, bool one) {
  auto cfg = config::LoadConfig(global.config, global.overrides);
  if (!cfg.ok()) return Fail(cfg.error());
  auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.error());
  auto run = ResolveRun(*store, a.run);
  if (!run.ok()) return Fail(run.error());
  a.run = *run;
  if (!one) {
    // The terminal shows short names; --full-names, CSV and JSON add each kernel's full name.
    const auto names =
        a.full_names || a.format != "table" ? report::KernelNames::kShortAndFull : report::KernelNames::kShort;
    auto table = a.all ? report::AllKernelsTable(*store, a.run, cfg->classify, a.rank, names)
                       : report::KernelsTable(*store, a.run, cfg->classify, a.rank, names);
    if (!table.ok()) return Fail(table.error());
    WriteTables({*table}, ParseFormat(a.format));
    return 0;
  }
  auto tables = report::KernelDetailTables(*store, a.run, a.which, cfg->classify, a.rank);
  if (!tables.ok()) return Fail(tables.error());
  WriteTables(*tables, ParseFormat(a.format));
  return 0;
}

}  // namespace

void RegisterKernels(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto list = std::make_shared<KernelsArgs>();
  CLI::App* cmd = app.add_subcommand("kernels", "Profiled kernels of a run by GPU time, with class and roofline");
  AddRunOption(cmd, "run", list->run, "run id")->required();
  cmd->add_option("--format,-f", list->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_flag("--all", list->all, "every kernel of the run from nsys, with ncu's figures where profiled");
  cmd->add_flag("--full-names", list->full_names,
                "each kernel's full name in a last column, Name (csv and json always have it)");
  cmd->add_option("--rank", list->rank, "one rank of a multi-GPU job: its kernels (with --all), or ncu's on its GPU");
  cmd->callback([list, &global, &exit_code] { exit_code = Run(*list, global, false); });

  auto detail = std::make_shared<KernelsArgs>();
  CLI::App* one = app.add_subcommand("kernel", "One profiled kernel: evidence, roofline, sections, advice");
  AddRunOption(one, "run", detail->run, "run id")->required();
  one->add_option("kernel", detail->which,
                  "the kernel's ID or short name in `kscope kernels`, or part of its full name")
      ->required();
  one->add_option("--format,-f", detail->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  one->add_option("--rank", detail->rank, "one rank of a multi-GPU job: among the launches ncu profiled on its GPU");
  one->callback([detail, &global, &exit_code] { exit_code = Run(*detail, global, true); });
}

}  // namespace kscope::cli
