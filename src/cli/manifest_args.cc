// The manifest options of the verbs that make runs (kscope import, kscope profile).
#include "cli/commands.h"

namespace kscope::cli {

void AddManifestOptions(CLI::App* cmd, ManifestArgs& args) {
  cmd->add_option("--label", args.label, "a name for the run");
  cmd->add_option("--model", args.model, "manifest: model name");
  cmd->add_option("--dtype", args.dtype, "manifest: compute dtype, e.g. bf16");
  cmd->add_option("--batch", args.batch, "manifest: batch size");
  cmd->add_option("--tokens", args.tokens, "manifest: tokens processed");
  // One value per --tag, so that a file after it is not taken for another tag.
  cmd->add_option("--tag", args.tags, "manifest: free-form KEY=VALUE tag (repeatable)")->allow_extra_args(false);
}

Result<store::Manifest> ToManifest(const ManifestArgs& args) {
  store::Manifest m;
  if (!args.label.empty()) m.label = args.label;
  if (!args.model.empty()) m.model = args.model;
  if (!args.dtype.empty()) m.dtype = args.dtype;
  if (args.batch >= 0) m.batch = args.batch;
  if (args.tokens >= 0) m.tokens = args.tokens;
  for (const auto& t : args.tags) {
    const auto eq = t.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error{"", "tag '" + t + "' is not KEY=VALUE", "write --tag KEY=VALUE"};
    }
    m.tags[t.substr(0, eq)] = t.substr(eq + 1);
  }
  return m;
}

}  // namespace kscope::cli
