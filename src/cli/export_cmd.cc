// kscope export RUN... --out DIR: runs as exported run folders that kscope import DIR brings back
// (import/run_export.h); kscope merge OTHER.db: runs of another store copied into this one
// (import/merge.h).
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "import/merge.h"
#include "import/run_export.h"
#include "import/store_upgrade.h"

namespace kscope::cli {

namespace {

struct ExportArgs {
  std::vector<int64_t> runs;
  std::string out;
  bool rows_only = false;
};

struct MergeArgs {
  std::string other;
  std::vector<int64_t> runs;
  bool force = false;
};

int Export(const GlobalOptions& global, const ExportArgs& args) {
  auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.error());
  import::ExportOptions options{args.runs, args.out, !args.rows_only};
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
      "Write runs as self-contained folders (their stored rows and source files) that kscope import brings back");
  cmd->add_option("runs", args->runs, "run ids")->required();
  cmd->add_option("--out", args->out, "folder to write DIR/<run id>/ into")->required();
  cmd->add_flag("--rows-only", args->rows_only, "leave the source files out (the rows alone give every view)");
  cmd->callback([args, &global, &exit_code] { exit_code = Export(global, *args); });

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
