// One function per verb; main.cc wires them to the command line.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "util/status.h"

namespace kscope::cli {

struct GlobalOptions {
  std::string db;  // --db; empty means store::DefaultDbPath()
  [[nodiscard]] std::string DbPath() const;
};

// Each Register* adds a subcommand whose callback sets the process exit code.
void RegisterImport(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterStats(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterRuns(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterKernels(CLI::App& app, const GlobalOptions& global, int& exit_code);
void RegisterSchema(CLI::App& app, int& exit_code);

// Prints an error as kscope's one line on stderr and returns the exit code for it.
int Fail(const Error& error);

}  // namespace kscope::cli
