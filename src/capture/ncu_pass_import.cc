#include "capture/ncu_pass_import.h"

#include <algorithm>

namespace kscope::capture {

Result<ImportedNcuPasses> ImportNcuPasses(store::Store& store, const std::vector<std::string>& first,
                                          const std::vector<NcuPassFiles>& passes, int64_t discovery_run,
                                          import::ImportOptions options, const import::BeforeCommit& before_commit,
                                          bool plan) {
  std::vector<std::string> files = first;
  for (const NcuPassFiles& pass : passes) {
    if (pass.files.empty()) continue;
    files.insert(files.end(), pass.files.begin(), pass.files.end());
    // The pass's launches come in with its first file (its report, or its raw page).
    if (plan) {
      options.planned.push_back({.path = pass.files.front(),
                                 .discovery_run = discovery_run,
                                 .profiled_rows = pass.profiled_rows,
                                 .by_matching = pass.by_matching});
    }
  }
  auto imported = import::ImportFiles(store, files, options, before_commit);
  if (!imported.ok()) return imported.error();
  ImportedNcuPasses out;
  for (const NcuPassFiles& pass : passes) {
    auto in = std::find_if(imported->begin(), imported->end(), [&](const import::FileOutcome& f) {
      return !pass.files.empty() && f.path == pass.files.front();
    });
    if (in != imported->end()) out.passes.push_back({pass.number, in->rows_read, in->links});
  }
  out.files = std::move(imported).value();
  return out;
}

}  // namespace kscope::capture
