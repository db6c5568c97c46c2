// Run ids on the command line: a number, or `last` for the newest run in the store.
#include <algorithm>

#include "cli/commands.h"

namespace kscope::cli {

std::string LastAsRunId(std::string text) { return text == "last" ? std::to_string(kLastRun) : text; }

CLI::Option* AddRunOption(CLI::App* cmd, const std::string& name, int64_t& run, const std::string& help) {
  return cmd->add_option(name, run, help + " (kscope runs), or last")->transform(LastAsRunId);
}

Result<int64_t> ResolveRun(store::Store& store, int64_t run) {
  if (run != kLastRun) {
    if (auto known = store.GetRun(run); !known.ok()) return known.error();
    return run;
  }
  auto runs = store.ListRuns();
  if (!runs.ok()) return runs.error();
  if (runs->empty()) return Error{"", "the store has no runs for `last`", "import one first: kscope import FILE"};
  int64_t newest = 0;
  for (const store::RunInfo& r : *runs) newest = std::max(newest, r.id);
  return newest;
}

}  // namespace kscope::cli
