// kscope config: the effective configuration, or the table of every key (docs/config.md).
#include <iostream>

#include "cli/commands.h"
#include "config/config.h"

namespace kscope::cli {

void RegisterConfig(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto keys = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("config", "Print the effective configuration (--config, --set) as YAML");
  cmd->add_flag("--keys", *keys, "print the table of every key instead (Markdown)");
  cmd->callback([keys, &global, &exit_code] {
    if (*keys) {
      std::cout << config::KeysMarkdown();
      exit_code = 0;
      return;
    }
    auto cfg = config::LoadConfig(global.config, global.overrides);
    if (!cfg.ok()) {
      exit_code = Fail(cfg.error());
      return;
    }
    std::cout << config::ToYaml(*cfg);
    exit_code = 0;
  });
}

}  // namespace kscope::cli
