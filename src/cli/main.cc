// kscope: profile, import and analyse NVIDIA GPU workloads. This file only wires verbs.
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>
#include <string_view>

#include "cli/commands.h"
#include "store/schema.h"
#include "store/store.h"

namespace kscope::cli {

std::string GlobalOptions::DbPath() const { return db.empty() ? store::DefaultDbPath() : db; }

int Fail(const Error& error) {
  std::cerr << error.Line() << "\n";
  return 1;
}

}  // namespace kscope::cli

namespace {
int Run(int argc, char** argv) {
  CLI::App app{"kscope: where GPU time goes and why, from nsys and ncu data"};
  app.require_subcommand(1);
  app.fallthrough();  // --db, --config and --set may also follow the verb
  app.set_version_flag("--version", std::string("kscope ") + KSCOPE_VERSION + " (store schema " +
                                        std::to_string(kscope::store::kSchemaVersion) + ")");
  kscope::cli::GlobalOptions global;
  // Everything after `--` is the workload of kscope profile, passed on untouched.
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      global.command.assign(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  }
  app.add_option("--db", global.db, "kscope database (default: $KSCOPE_DB or ~/.local/share/kscope/kscope.db)");
  app.add_option("--config", global.config, "YAML configuration file (docs/config.md)");
  app.add_option("--set", global.overrides, "override a configuration key: --set ncu.mode=deep (repeatable)");
  int exit_code = 0;
  kscope::cli::RegisterImport(app, global, exit_code);
  kscope::cli::RegisterStats(app, global, exit_code);
  kscope::cli::RegisterRuns(app, global, exit_code);
  kscope::cli::RegisterQuery(app, global, exit_code);
  kscope::cli::RegisterKernels(app, global, exit_code);
  kscope::cli::RegisterSchema(app, exit_code);
  kscope::cli::RegisterProfile(app, global, exit_code);
  kscope::cli::RegisterDoctor(app, exit_code);
  kscope::cli::RegisterConfig(app, global, exit_code);
  kscope::cli::RegisterReport(app, global, exit_code);
  kscope::cli::RegisterAtlas(app, global, exit_code);
  kscope::cli::RegisterDiff(app, global, exit_code);
  kscope::cli::RegisterExport(app, global, exit_code);
  kscope::cli::RegisterWhatIf(app, global, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) {
      std::cerr << "kscope: error: " << e.what() << "; see kscope --help\n";
      return 2;
    }
    return app.exit(e);
  }
  return exit_code;
}
}  // namespace

int main(int argc, char** argv) {
  // Past a file size limit (ulimit -f) a write fails with EFBIG, an error kscope reports,
  // instead of the signal ending kscope halfway.
  (void)std::signal(SIGXFSZ, SIG_IGN);
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    // Only programming errors and exhausted memory get here: expected failures are values.
    std::cerr << "kscope: error: internal error: " << e.what() << "; please report it\n";
  } catch (...) {
    std::cerr << "kscope: error: internal error; please report it\n";
  }
  return 70;
}
