// kscope diff A B: what changed between two runs, with a comparability check first and
// --fail-if thresholds that set the exit code (3 when one trips).
#include <fmt/format.h>

#include <iostream>

#include "analysis/atlas/diff.h"
#include "cli/commands.h"
#include "config/config.h"
#include "report/diff_report.h"

namespace kscope::cli {

namespace {

struct DiffArgs {
  int64_t a = 0, b = 0;
  std::vector<std::string> fail_if;
  std::string format = "table";
};

int Run(const DiffArgs& args, const GlobalOptions& global) {
  std::vector<analysis::atlas::Threshold> thresholds;
  for (const auto& text : args.fail_if) {
    auto t = analysis::atlas::ParseThreshold(text);
    if (!t.ok()) return Fail(t.error());
    thresholds.push_back(*t);
  }
  auto cfg = config::LoadConfig(global.config, global.overrides);
  if (!cfg.ok()) return Fail(cfg.error());
  auto store = store::Store::Open(global.DbPath(), sql::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.error());
  auto diff = analysis::atlas::DiffRuns(*store, args.a, args.b, *cfg);
  if (!diff.ok()) return Fail(diff.error());
  for (const auto& line : report::DiffWarnings(*diff)) std::cerr << line << "\n";
  if (args.format == "json") {
    std::cout << report::DiffJson(*diff).dump(2) << "\n";
  } else {
    const auto tables = report::DiffTables(*diff);
    for (size_t i = 0; i < tables.size(); ++i) {
      if (i > 0) std::cout << "\n";
      report::Write(tables[i], args.format == "csv" ? report::Format::kCsv : report::Format::kTable, std::cout);
    }
  }
  int code = 0;
  for (const auto& t : thresholds) {
    const auto [value, tripped] = analysis::atlas::Check(*diff, t);
    if (!tripped) continue;
    std::cerr << fmt::format("kscope: threshold tripped: {} ({} is {:.1f})\n", t.text, t.metric, value);
    code = 3;
  }
  return code;
}

}  // namespace

void RegisterDiff(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto a = std::make_shared<DiffArgs>();
  CLI::App* cmd =
      app.add_subcommand("diff", "What changed between two runs: families, kernels, stages, MFU and classes");
  cmd->add_option("a", a->a, "the run to compare against (kscope runs)")->required();
  cmd->add_option("b", a->b, "the run compared")->required();
  cmd->add_option("--fail-if", a->fail_if,
                  "exit with 3 when a threshold trips, e.g. 'gpu_time_pct>5' (repeatable; docs/atlas.md)");
  cmd->add_option("--format,-f", a->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback([a, &global, &exit_code] { exit_code = Run(*a, global); });
}

}  // namespace kscope::cli
