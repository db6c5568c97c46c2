// One function per verb; main.cc wires them to the command line.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::cli {

struct GlobalOptions {
  std::string db;                      // --db; empty means store::DefaultDbPath()
  std::string config;                  // --config: the YAML configuration (docs/config.md)
  std::vector<std::string> overrides;  // --set KEY=VALUE
  std::vector<std::string> command;    // what follows `--` (kscope profile's workload)
  [[nodiscard]] std::string DbPath() const;
};

// The manifest options of the verbs that make runs: --label, --model, --dtype, --batch,
// --tokens and --tag KEY=VALUE (repeatable).
struct ManifestArgs {
  std::string label, model, dtype;
  int64_t batch = -1, tokens = -1;
  std::vector<std::string> tags;
};
void AddManifestOptions(CLI::App* cmd, ManifestArgs& args);
Result<store::Manifest> ToManifest(const ManifestArgs& args);

// A run on the command line: its id (kscope runs), or `last`, the newest run in the store.
inline constexpr int64_t kLastRun = -1;
CLI::Option* AddRunOption(CLI::App* cmd, const std::string& name, int64_t& run, const std::string& help);
// The transform of every option that takes run ids: `last` becomes kLastRun.
std::string LastAsRunId(std::string text);
// The run `run` names: itself, or for kLastRun the store's newest; an error where it has none.
Result<int64_t> ResolveRun(store::Store& store, int64_t run);

// Each Register* adds a subcommand whose callback sets the process exit code.
void RegisterImport(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterStats(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterRuns(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterKernels(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterSchema(CLI::App& app, int& exit_code);
void RegisterProfile(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterDoctor(CLI::App& app, int& exit_code);
void RegisterConfig(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterReport(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterAtlas(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterDiff(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterQuery(CLI::App& app, const GlobalOptions& global, int& exit_code);
// kscope export and kscope merge (export_cmd.cc).
void RegisterExport(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterWhatIf(CLI::App& app, const GlobalOptions& global, int& exit_code);

// Prints an error as kscope's one line on stderr and returns the exit code for it.
int Fail(const Error& error);

}  // namespace kscope::cli
