// kscope diff A B: what changed between two runs, or between two selections of runs (--a-tag,
// --b-tag, ... chosen as kscope atlas chooses runs), with a comparability check first and
// --fail-if thresholds that set the exit code (3 when one trips).
#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "analysis/atlas/diff.h"
#include "analysis/atlas/diff_selections.h"
#include "cli/commands.h"
#include "config/config.h"
#include "import/store_upgrade.h"
#include "report/diff_report.h"
#include "report/diff_selections_report.h"

namespace kscope::cli {

namespace {

// One selection as kscope atlas's options write it, each prefixed --a- or --b-.
struct SideArgs {
  std::vector<int64_t> runs;
  std::vector<std::string> tags;
  std::string label, model, gpu;
  [[nodiscard]] bool Empty() const {
    return runs.empty() && tags.empty() && label.empty() && model.empty() && gpu.empty();
  }
};

struct DiffArgs {
  std::optional<int64_t> run_a, run_b;  // A B
  SideArgs a, b;
  std::vector<std::string> fail_if;
  std::string format = "table";
  std::optional<int64_t> rank;  // one rank of every run compared
};

// `side`: "a" or "b", for the options' names in errors.
Result<analysis::atlas::RunFilter> ToFilter(const SideArgs& s, const std::string& side) {
  analysis::atlas::RunFilter f;
  f.run_ids = s.runs;
  for (const auto& t : s.tags) {
    const auto eq = t.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error{"", "tag '" + t + "' is not KEY=VALUE", "write --" + side + "-tag KEY=VALUE"};
    }
    f.tags[t.substr(0, eq)] = t.substr(eq + 1);
  }
  if (!s.label.empty()) f.label = s.label;
  if (!s.model.empty()) f.model = s.model;
  if (!s.gpu.empty()) f.gpu = s.gpu;
  return f;
}

// Either two run ids, or a selection for each side.
Status CheckSides(const DiffArgs& args) {
  const bool selections = !args.a.Empty() || !args.b.Empty();
  if (selections && args.run_a) {
    return Error{"diff", "takes either two runs (A B) or two selections (--a-... and --b-...), not both",
                 "select a single run as a side with --a-run ID or --b-run ID"};
  }
  if (selections && (args.a.Empty() || args.b.Empty())) {
    return Error{"diff", std::string("selection ") + (args.a.Empty() ? "A" : "B") + " is missing",
                 "give each side at least one option: --a-run, --a-tag, --a-label, --a-model or --a-gpu, and the "
                 "same with --b-"};
  }
  if (!selections && !args.run_b) {
    return Error{"diff", "needs two runs (A B) or two selections",
                 "write kscope diff A B, or e.g. kscope diff --a-tag variant=base --b-tag variant=new"};
  }
  return {};
}

// Prints the warnings, then the diff in the chosen format (`json`, `tables`: functions that
// make it); returns the exit code of the thresholds.
template <typename Diff, typename Json, typename Tables>
int Print(const Diff& diff, const std::vector<std::string>& warnings, const Json& json, const Tables& tables,
          const DiffArgs& args, const std::vector<analysis::atlas::Threshold>& thresholds) {
  for (const auto& line : warnings) std::cerr << line << "\n";
  if (args.format == "json") {
    std::cout << json(diff).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    report::WriteDiffTables(tables(diff), args.format == "csv" ? report::Format::kCsv : report::Format::kTable,
                            std::cout);
  }
  int code = 0;
  for (const auto& t : thresholds) {
    const auto [value, tripped] = analysis::atlas::Check(diff, t);
    if (!tripped) continue;
    std::cerr << fmt::format("kscope: threshold tripped: {} ({} is {:.1f})\n", t.text, t.metric, value);
    code = 3;
  }
  return code;
}

int Run(const DiffArgs& args, const GlobalOptions& global) {
  if (auto st = CheckSides(args); !st.ok()) return Fail(st.error());
  std::vector<analysis::atlas::Threshold> thresholds;
  for (const auto& text : args.fail_if) {
    auto t = analysis::atlas::ParseThreshold(text);
    if (!t.ok()) return Fail(t.error());
    thresholds.push_back(*t);
  }
  auto cfg = config::LoadConfig(global.config, global.overrides);
  if (!cfg.ok()) return Fail(cfg.error());
  auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.error());
  if (args.run_a) {
    auto a_run = ResolveRun(*store, *args.run_a);
    if (!a_run.ok()) return Fail(a_run.error());
    auto b_run = ResolveRun(*store, *args.run_b);
    if (!b_run.ok()) return Fail(b_run.error());
    auto diff = analysis::atlas::DiffRuns(*store, *a_run, *b_run, *cfg, args.rank);
    if (!diff.ok()) return Fail(diff.error());
    return Print(*diff, report::DiffWarnings(*diff), report::DiffJson, report::DiffTables, args, thresholds);
  }
  auto a = ToFilter(args.a, "a");
  if (!a.ok()) return Fail(a.error());
  auto b = ToFilter(args.b, "b");
  if (!b.ok()) return Fail(b.error());
  a->rank = args.rank;
  b->rank = args.rank;
  auto diff = analysis::atlas::DiffSelections(*store, *a, *b, *cfg);
  if (!diff.ok()) return Fail(diff.error());
  return Print(*diff, report::SelectionDiffWarnings(*diff), report::SelectionDiffJson, report::SelectionDiffTables,
               args, thresholds);
}

void AddSideOptions(CLI::App* cmd, SideArgs& s, const std::string& side) {
  const std::string p = "--" + side + "-";
  const std::string of = side == "a" ? " (selection A)" : " (selection B)";
  cmd->add_option(p + "run", s.runs, "a run id to include, repeatable" + of);
  cmd->add_option(p + "tag", s.tags, "only runs with this KEY=VALUE tag, repeatable: all of them" + of);
  cmd->add_option(p + "label", s.label, "only runs with this label" + of);
  cmd->add_option(p + "model", s.model, "only runs of this manifest model" + of);
  cmd->add_option(p + "gpu", s.gpu, "only runs on this GPU, as kscope runs shows it" + of);
}

}  // namespace

void RegisterDiff(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto a = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "What changed between two runs, or two selections of runs: families, kernels, stages, MFU and classes");
  cmd->add_option("a", a->run_a, "the run to compare against (kscope runs), or last")->transform(LastAsRunId);
  cmd->add_option("b", a->run_b, "the run compared, or last")->transform(LastAsRunId);
  AddSideOptions(cmd, a->a, "a");
  AddSideOptions(cmd, a->b, "b");
  cmd->add_option("--fail-if", a->fail_if,
                  "exit with 3 when a threshold trips, e.g. 'gpu_time_pct>5' (repeatable; docs/atlas.md)");
  cmd->add_option("--rank", a->rank, "one rank of every run compared (multi-GPU jobs): its kernels and stages alone");
  cmd->add_option("--format,-f", a->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback([a, &global, &exit_code] { exit_code = Run(*a, global); });
}

}  // namespace kscope::cli
