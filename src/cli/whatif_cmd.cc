// kscope whatif RUN [EDIT...]: the run's steps replayed over its dependency graph as recorded
// and with the edits, their critical path before and after (analysis/graph/whatif.h).
#include <iostream>
#include <optional>

#include "analysis/graph/whatif.h"
#include "cli/commands.h"
#include "config/config.h"
#include "import/store_upgrade.h"
#include "report/whatif_report.h"

namespace kscope::cli {

namespace {

struct WhatIfArgs {
  int64_t run = 0;
  std::vector<std::string> edits;
  std::string format = "table";
  size_t top = 10;
  std::string steps;
  std::optional<double> step_ms;
};

int Run(const WhatIfArgs& a, const GlobalOptions& global) {
  auto cfg = config::LoadConfig(global.config, global.overrides);
  if (!cfg.ok()) return Fail(cfg.error());
  std::vector<analysis::graph::Edit> edits;
  for (const auto& text : a.edits) {
    auto e = analysis::graph::ParseEdit(text);
    if (!e.ok()) return Fail(e.error());
    edits.push_back(*e);
  }
  auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.error());
  auto run = ResolveRun(*store, a.run);
  if (!run.ok()) return Fail(run.error());
  analysis::graph::WhatIfOptions options;
  options.warmup = cfg->stages.warmup;
  options.top_kernels = a.top;
  options.steps = a.steps;
  if (a.step_ms) options.measured_step_ns = *a.step_ms * 1e6;
  auto answer = analysis::graph::AnswerWhatIf(*store, *run, edits, options);
  if (!answer.ok()) return Fail(answer.error());
  if (a.format == "json") {
    std::cout << report::WhatIfJson(*answer).dump(2) << "\n";
  } else if (a.format == "csv") {
    bool first = true;
    for (const auto& t : report::WhatIfTables(*answer)) {
      if (!first) std::cout << "\n";
      first = false;
      report::WriteCsv(t, std::cout);
    }
  } else {
    report::WriteWhatIf(*answer, std::cout);
  }
  return 0;
}

}  // namespace

void RegisterWhatIf(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto args = std::make_shared<WhatIfArgs>();
  CLI::App* cmd = app.add_subcommand(
      "whatif",
      "Replay a run's steps over its dependency graph, as recorded and with edits: the critical path and "
      "what a change saves");
  AddRunOption(cmd, "run", args->run, "run id")->required();
  cmd->add_option("edits", args->edits,
                  "changes to replay: WHAT[@SCOPE]=FACTOR, WHAT one of kernel:TEXT, family:NAME, copies, comm, host, "
                  "launch, sync; or graph@STAGE (docs/whatif.md)");
  cmd->add_option("--format,-f", args->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_option("--top", args->top, "kernels listed per step set (default 10)");
  cmd->add_option("--steps", args->steps,
                  "the steps to calibrate on: a stage's name or 'iteration' (default: the outermost repeating stage, "
                  "else the iterations)");
  cmd->add_option("--step-ms", args->step_ms,
                  "a step's median measured without a profiler, in ms: the host's time is scaled to it before the "
                  "edits (tracing slows the host, not the GPU)")
      ->check(CLI::PositiveNumber);
  cmd->callback([args, &global, &exit_code] { exit_code = Run(*args, global); });
}

}  // namespace kscope::cli
