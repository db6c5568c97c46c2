// kscope schema: the store's schema as Markdown (docs/schema.md is its output).
#include <iostream>

#include "cli/commands.h"
#include "store/schema_doc.h"

namespace kscope::cli {

void RegisterSchema(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("schema", "Print the database schema as Markdown");
  cmd->callback([&exit_code] {
    std::cout << store::SchemaMarkdown();
    exit_code = 0;
  });
}

}  // namespace kscope::cli
