// kscope export RUN... --out DIR: runs as exported run folders that kscope import DIR brings back
// (import/run_export.h); kscope export --perfetto RUN -o FILE: one run as a trace for
// ui.perfetto.dev and chrome://tracing (report/perfetto_trace.h); kscope merge OTHER.db: runs
// of another store copied into this one (import/merge.h).
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "cli/commands.h"
#include "config/config.h"
#include "import/merge.h"
#include "import/run_export.h"
#include "import/store_upgrade.h"
#include "report/perfetto_trace.h"

namespace kscope::cli {

namespace {

struct ExportArgs {
  std::vector<int64_t> runs;
  int64_t perfetto = 0;
  bool has_perfetto = false;  // --perfetto RUN was given
  std::string out;
  bool rows_only = false;
};

struct MergeArgs {
  std::string other;
  std::vector<int64_t> runs;
  bool force = false;
};

int ExportPerfetto(const GlobalOptions& global, const ExportArgs& args) {
  const std::string where = "kscope export --perfetto";
  if (!args.runs.empty()) {
    return Fail({where, "writes one run, the one --perfetto names, and other run ids were given",
                 "export one run per file: kscope export --perfetto RUN -o FILE"});
  }
  if (args.rows_only) return Fail({where, "--rows-only is for run folders", "leave it out"});
  if (args.out.empty()) return Fail({where, "no file to write the trace to", "pass -o FILE (e.g. -o run.json)"});
  auto cfg = config::LoadConfig(global.config, global.overrides);
  if (!cfg.ok()) return Fail(cfg.error());
  auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.error());
  auto run = ResolveRun(*store, args.perfetto);
  if (!run.ok()) return Fail(run.error());
  const auto began = std::chrono::steady_clock::now();
  auto done = report::WritePerfettoTrace(*store, *run, args.out, *cfg);
  if (!done.ok()) return Fail(done.error());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::cout << fmt::format(
      "wrote {}: run {} as a Chrome JSON trace, {} events ({:.1f} MB) in {:.1f} s: {} CUDA calls, {} NVTX ranges, {} "
      "kernels, {} copies and sets, {} launch arrows\n",
      args.out, *run, done->events, static_cast<double>(done->bytes) / 1e6, seconds, done->calls, done->nvtx_ranges,
      done->kernels, done->memops, done->launch_flows);
  if (done->critical_path) {
    const report::DrawnPath& p = *done->critical_path;
    std::cout << fmt::format("critical path: {} #{} of {} (the median), {:.3f} ms, {} pieces\n", p.step_set, p.step,
                             p.steps, static_cast<double>(p.end - p.start) / 1e6, p.pieces);
  }
  for (const auto& n : done->notes) std::cout << "  note: " << n << "\n";
  std::cout << "open it in ui.perfetto.dev (Open trace file) or chrome://tracing (Load)\n";
  return 0;
}

int Export(const GlobalOptions& global, const ExportArgs& args) {
  if (args.has_perfetto) return ExportPerfetto(global, args);
  if (args.runs.empty()) {
    return Fail({"kscope export", "no run given", "pass run ids (kscope runs), or --perfetto RUN -o FILE"});
  }
  if (args.out.empty()) return Fail({"kscope export", "no folder to export into", "pass --out DIR"});
  auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.error());
  std::vector<int64_t> runs;
  for (const int64_t r : args.runs) {
    auto run = ResolveRun(*store, r);
    if (!run.ok()) return Fail(run.error());
    runs.push_back(*run);
  }
  import::ExportOptions options{runs, args.out, !args.rows_only};
  auto done = import::ExportRuns(*store, options);
  if (!done.ok()) return Fail(done.error());
  for (const auto& r : *done) {
    std::cout << fmt::format("exported run {} to {}: its rows and {} source file(s)\n", r.run_id, r.dir, r.files);
    for (const auto& n : r.notes) std::cout << "  note: " << n << "\n";
  }
  return 0;
}

int Merge(const GlobalOptions& global, const MergeArgs& args) {
  import::RunCopyOptions options;
  options.runs = args.runs;
  options.refuse_duplicates = !args.force;
  auto done = import::MergeStore(global.DbPath(), args.other, options);
  if (!done.ok()) return Fail(done.error());
  if (done->upgraded_from != 0) {
    std::cout << fmt::format("read {} (schema version {}) through an upgraded copy; the file is left as it was\n",
                             args.other, done->upgraded_from);
  }
  for (const auto& [from, to] : done->copied.runs) {
    std::cout << fmt::format("merged run {} of {} as run {}\n", from, args.other, to);
  }
  for (const auto& n : done->copied.notes) std::cout << "  note: " << n << "\n";
  std::cout << fmt::format("{} run(s) merged into {}\n", done->copied.runs.size(), global.DbPath());
  return 0;
}

}  // namespace

void RegisterExport(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write runs as self-contained folders (their stored rows and source files) that kscope import brings back, "
      "or one run as a trace for ui.perfetto.dev and chrome://tracing (--perfetto)");
  cmd->add_option("runs", args->runs, "run ids (kscope runs), or last")->transform(LastAsRunId);
  CLI::Option* perfetto = AddRunOption(
      cmd, "--perfetto", args->perfetto,
      "write this run as a Chrome JSON trace (threads, streams, launch arrows, stages, the critical path) to -o FILE: "
      "its id");
  cmd->add_option("--out,-o", args->out, "folder to write DIR/<run id>/ into; with --perfetto, the trace's file");
  cmd->add_flag("--rows-only", args->rows_only, "leave the source files out (the rows alone give every view)");
  cmd->callback([args, perfetto, &global, &exit_code] {
    args->has_perfetto = perfetto->count() > 0;
    exit_code = Export(global, *args);
  });

  auto margs = std::make_shared<MergeArgs>();
  CLI::App* merge = app.add_subcommand(
      "merge", "Copy the runs of another kscope store into this one, in one transaction (ids given anew)");
  merge->add_option("other", margs->other, "the other store's .db file (of this kscope's schema or an older one)")
      ->required();
  merge->add_option("--run", margs->runs, "copy this run of it (repeatable; default: all)");
  merge->add_flag("--force", margs->force, "copy a run although this store holds a source file of the same content");
  merge->callback([margs, &global, &exit_code] { exit_code = Merge(global, *margs); });
}

}  // namespace kscope::cli
